import Foundation
import PrivilegedSession

/// What a project is exported as. Markdown and HTML are made here; DOCX and PDF by pandoc from the
/// Markdown (the one text the leak guard scanned), so every format carries what the funnel released.
public enum ExportFormat: String, CaseIterable, Sendable {
    case markdown = "md"
    case html
    case docx
    case pdf

    /// Whether the programs this format needs are installed; throws `exportToolMissing`, naming what
    /// to install, when one is not. Checked before anything is read or decided, so a missing tool
    /// records nothing.
    public func checkTools() throws {
        if needsPandoc { _ = try PandocConversion.steps(for: rawValue) }
    }

    var needsPandoc: Bool { self == .docx || self == .pdf }

    /// The text the funnel scans and releases: the page itself for html, the Markdown for the others.
    func text(of project: ExportedProject) -> String {
        self == .html ? HTMLExport.render(project) : MarkdownExport.render(project)
    }

    /// The file's bytes made from what the funnel released: as they are, or converted by pandoc.
    func document(from released: ReleasedPayload) throws -> [UInt8] {
        needsPandoc ? Array(try PandocConversion.convert(released.bytes, to: rawValue)) : released.bytes
    }
}
