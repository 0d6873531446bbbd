import Foundation
import PrivilegedSession
import Writing

/// What `vaultctl export` writes. Markdown and HTML are made here; DOCX and PDF by pandoc from the
/// Markdown (the one text the leak guard scanned), so every format carries what the funnel released.
enum ExportFormat: String, CaseIterable {
    case markdown = "md"
    case html
    case docx
    case pdf

    init(parsing text: String, usage: String) throws {
        guard let format = ExportFormat(rawValue: text) else {
            throw UsageError(message: "unknown format '\(text)' (one of: \(Self.allCases.map(\.rawValue).joined(separator: ", ")))", usage: usage)
        }
        self = format
    }

    /// The text the funnel scans and releases: the page itself for html, the Markdown for the others.
    func text(of project: ExportedProject) -> String {
        self == .html ? HTMLExport.render(project) : MarkdownExport.render(project)
    }

    /// Writes what the funnel released: as it is, or converted by pandoc.
    func write(_ released: ReleasedPayload, to output: OutputTarget) throws {
        switch self {
        case .markdown, .html: try released.bytes.withUnsafeBytes { try output.write($0) }
        case .docx, .pdf: try PandocConversion.convert(released.bytes, to: rawValue).withUnsafeBytes { try output.write($0) }
        }
    }
}
