import CryptoVault
import Foundation
import PrivilegedSession
import Registers
import Writing

/// `vaultctl export PROJECT --format md|html|docx|pdf -o FILE`: a project's plaintext written out of
/// the vault, through the egress funnel like every other byte that leaves it.
enum ExportCommand {
    static let formatOption = Option("--format", value: "FORMAT", "md, html, docx (through pandoc) or pdf (through pandoc and groff), when installed")

    static let command = Command("export", synopsis: "write a project out as Markdown, HTML, DOCX or PDF", usage: "PROJECT --format FORMAT -o FILE", about: """
        Writes PROJECT's folders and documents, in reading order, to FILE: CommonMark Markdown (md),
        one standalone HTML page (html), or, through pandoc from that Markdown, DOCX or PDF (pandoc,
        then groff's PDF device; its fonts cover Latin scripts: use docx or html for others). The
        text reaches them only through pipes, never a temporary file. The project's name is the
        title, each folder and document a heading, and the writer's text is escaped so that it
        reads back as written. FILE appears only complete (temporary file in its folder, fsync,
        rename).

        The plaintext leaves the vault, so it passes the egress funnel first (destination
        file:FILE): the leak guard scans the Markdown, the project's compartment policy decides and
        the decision is recorded in the audit log (size and SHA-256, never the text). A privileged
        project leaves only inside its session (--purpose, or the daemon's), named in that record,
        and as written: its owner is exporting it. Exit code 3: it was written redacted; 4: refused,
        nothing written.

        \(WritingContext.sessionNote)
        """, options: [formatOption, Option.output("the file to write"), Option.force] + DocCommands.readOptions,
        positionals: 1...1, json: true, examples: [
            "vaultctl export \"The harbour\" --format md -o harbour.md",
            "vaultctl export \"The harbour\" --format docx -o harbour.docx --json",
        ]) { arguments in
            let format = try parsedFormat(try arguments.required("--format"), usage: arguments.usage)
            // Before the vault is unlocked: a missing pandoc or groff asks for no passphrase and records nothing.
            try format.checkTools()
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let access = try context.requireAccess(for: project)
            let path = try arguments.required("-o")
            let outcome = try export(project, as: format, access: access, to: path, force: arguments.has("--force"), in: context.vault)
            report(outcome, to: path, register: project.register, json: arguments.has("--json"))
            switch outcome.decision {
            case .allow: return
            case .redact: throw Decided(exitCode: .redacted)
            case .refuse: throw Decided(exitCode: .refused)
            }
        }

    /// The library's export (`ProjectExport`: render, funnel, durable write), to a file or, for `-o -`,
    /// to standard output (named `file:-` in the egress record).
    private static func export(_ project: WritingProject, as format: ExportFormat, access: RecordAccess, to path: String,
                               force: Bool, in vault: UnlockedVault) throws -> ExportOutcome {
        let exporter = try ProjectExport(vault: vault)
        guard path != "-" else {
            let output = StandardStreams.current.output
            return try exporter.write(project.id, as: format, access: access, to: "-") { bytes in try bytes.withUnsafeBytes { try output.write($0) } }
        }
        // A vaultctl killed while writing here left its temporary file (possibly plaintext): remove it now.
        for name in AtomicOutputFile.removeAbandonedTemporaries(besides: path) {
            Output.note("vaultctl: removed \(name), left by an interrupted vaultctl")
        }
        do {
            return try exporter.write(project.id, as: format, access: access, to: path, replacing: force)
        } catch let error as CryptoVaultError {
            throw OutputTarget.refusal(for: error) ?? error
        }
    }

    private static func parsedFormat(_ text: String, usage: String) throws -> ExportFormat {
        guard let format = ExportFormat(rawValue: text) else {
            throw UsageError(message: "unknown format '\(text)' (one of: \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")))", usage: usage)
        }
        return format
    }

    /// What was decided and written; on stderr when the export itself goes to standard output (-o -).
    private static func report(_ outcome: ExportOutcome, to path: String, register: Register, json: Bool) {
        let toStandardError = path == "-"
        let record = outcome.egress.record
        if json {
            let document: [String: Any] = ["decision": outcome.decision.rawValue, "destination": record.destination, "format": outcome.format.rawValue,
                                           "size": record.payloadSize, "sha256": BundleCommands.hex(record.payloadSHA256),
                                           "written": outcome.written]
            if toStandardError { Output.jsonNote(document) } else { Output.json(document) }
            return
        }
        let say: (String) -> Void = toStandardError ? { Output.note($0) } : { Output.line($0) }
        let format = outcome.format.rawValue
        switch outcome.decision {
        case .allow: say("Exported to \(path) (\(format)).")
        case .redact: say("Exported to \(path) (\(format)), redacted: the leak guard found \(outcome.egress.findings.count) identifier(s).")
        case .refuse: say("Refused: the \(WritingContext.term(.project, register))'s policy does not let it leave as a file; nothing written.")
        }
    }
}
