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
            let format = try ExportFormat(parsing: try arguments.required("--format"), usage: arguments.usage)
            if format == .docx || format == .pdf { _ = try PandocConversion.steps(for: format.rawValue) }
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let access = try context.requireAccess(for: project)
            let exported = try context.vault.transaction { tx in try WritingStore(tx, access: access).exportedProject(project) }
            // The target is made before the decision, so a path that cannot be written is refused before anything is recorded.
            let output = try OutputTarget(try arguments.required("-o"), force: arguments.has("--force"))
            var decided: EgressOutcome?
            do {
                try output.produce { output in
                    let outcome = try EgressFunnel(vault: context.vault).submit(EgressRequest(
                        destination: EgressDestination(kind: .file, id: absolute(output.name)), compartments: [project.compartment],
                        payload: Array(format.text(of: exported).utf8), session: access.session(of: project.compartment)))
                    decided = outcome
                    // Refused: nothing is released, and throwing removes the temporary file.
                    guard let released = outcome.released else { throw Decided(exitCode: .refused) }
                    try format.write(released, to: output)
                }
            } catch let refusal as Decided {
                if let decided { report(decided, format: format, to: output, register: project.register, json: arguments.has("--json")) }
                throw refusal
            }
            guard let outcome = decided else { return }
            report(outcome, format: format, to: output, register: project.register, json: arguments.has("--json"))
            switch outcome.decision {
            case .allow: return
            case .redact: throw Decided(exitCode: .redacted)
            case .refuse: throw Decided(exitCode: .refused)
            }
        }

    /// Where the file lands, as the audit log names it: the path from the root.
    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// What was decided and written; on stderr when the export itself goes to standard output (-o -).
    private static func report(_ outcome: EgressOutcome, format: ExportFormat, to output: OutputTarget, register: Register, json: Bool) {
        let toStandardError = output.isStandardOutput
        if json {
            let document: [String: Any] = ["decision": outcome.decision.rawValue, "destination": outcome.record.destination, "format": format.rawValue,
                                           "size": outcome.record.payloadSize, "sha256": BundleCommands.hex(outcome.record.payloadSHA256),
                                           "written": outcome.released != nil]
            if toStandardError { Output.jsonNote(document) } else { Output.json(document) }
            return
        }
        let say: (String) -> Void = toStandardError ? { Output.note($0) } : { Output.line($0) }
        let path = output.name
        switch outcome.decision {
        case .allow: say("Exported to \(path) (\(format.rawValue)).")
        case .redact: say("Exported to \(path) (\(format.rawValue)), redacted: the leak guard found \(outcome.findings.count) identifier(s).")
        case .refuse: say("Refused: the \(WritingContext.term(.project, register))'s policy does not let it leave as a file; nothing written.")
        }
    }
}
