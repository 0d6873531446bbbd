import Foundation
import Registers
import Writing

/// `vaultctl snapshot diff PROJECT DOC FROM [TO]`: what changed between two versions of a document,
/// word by word; TO is the document as it is now when left out, so "what did I change since the
/// version I showed my supervisor" is one command.
enum SnapshotDiffCommand {
    static let command = Command("snapshot diff", synopsis: "compare two versions of a document, word by word", usage: "PROJECT DOC FROM [TO]",
                                 about: """
        Shows what changed in document DOC from version FROM to version TO (the current text when TO
        is left out), word by word: removed words as [-words-], added ones as {+words+}. FROM and TO
        are a snapshot's id or its number in the document's history ('vaultctl history' lists them).
        With --json, both versions and the runs. The versions are read through the store, so the
        read is recorded as any other.

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 3...4, json: true, examples: [
            "vaultctl snapshot diff \"The harbour\" Arrival 2",
            "vaultctl snapshot diff \"Intake notes\" \"Session 3\" 1 4 --purpose \"supervision review\"",
        ]) { arguments in
            let (context, project, node) = try SnapshotCommands.open(arguments)
            defer { context.end() }
            let compared = try context.store(for: project) { store in
                try Comparison(store, node.id, in: project.id, from: arguments.positionals[2], to: arguments.positionals.dropFirst(3).first)
            }
            let labels = FieldEditor(project.register)
            let diff = try WordDiff.between(PlainText.render(compared.old, labels: labels), PlainText.render(compared.new, labels: labels))
            if arguments.has("--json") {
                Output.json(["from": SnapshotCommands.json(compared.from), "to": compared.to.map { SnapshotCommands.json($0) as Any } ?? "current",
                             "runs": WordDiffOutput.json(diff)])
                return
            }
            Output.raw(WordDiffOutput.text(diff))
        }

    /// The two versions compared: FROM, and TO or (nil) the current content.
    private struct Comparison {
        let from: Snapshot
        let to: Snapshot?
        let old: DocumentContent
        let new: DocumentContent

        init(_ store: WritingStore, _ document: NodeID, in project: ProjectID, from: String, to: String?) throws {
            let snapshots = try store.snapshots(of: document, in: project)
            (self.from, old) = try SnapshotCommands.resolve(from, in: snapshots) { try store.snapshotContent($0, of: document, in: project) }
            guard let to else {
                self.to = nil
                new = try store.documentContent(of: document, in: project)
                return
            }
            let (snapshot, content) = try SnapshotCommands.resolve(to, in: snapshots) { try store.snapshotContent($0, of: document, in: project) }
            (self.to, new) = (snapshot, content)
        }
    }
}
