import CryptoVault
import Foundation
import Registers
import Writing

/// history, snapshot create, list, show, restore: a document's stored versions (SECURITY.md §15.2).
enum SnapshotCommands {
    static let titleOption = Option("--title", value: "TITLE", "name the version (without it the snapshot is automatic)")
    static let snapshotNote = """
        SNAPSHOT is a snapshot's id or its number in the document's history (1 for the first).
        """

    static let history = Command("history", synopsis: "a document's versions and the words each changed", usage: "PROJECT DOC", about: """
        Lists the stored versions of document DOC (title or id) of PROJECT, oldest first: number,
        id, when, how it was made (automatic, titled, restore), its title, and the words it added and
        removed against the version before it.

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl history \"The harbour\" Arrival",
            "vaultctl history \"Intake notes\" \"Session 3\" --purpose \"review the changes\" --json",
        ]) { arguments in
            let (context, project, node) = try open(arguments)
            defer { context.end() }
            let (snapshots, contents) = try context.store(for: project) { store in
                let snapshots = try store.snapshots(of: node.id, in: project.id)
                return (snapshots, try snapshots.map { try store.snapshotContent($0.id, of: node.id, in: project.id) })
            }
            var previous = ""
            var rows: [[String: Any]] = []
            for (snapshot, content) in zip(snapshots, contents) {
                let text = PlainText.render(content, labels: FieldEditor(project.register))
                let (added, removed) = try wordsChanged(previous, text)
                previous = text
                var row = json(snapshot)
                row["words_added"] = added
                row["words_removed"] = removed
                rows.append(row)
            }
            if arguments.has("--json") { Output.json(rows); return }
            Output.line("\(snapshots.count) version(s) of \(WritingContext.term(.scene, project.register)) \(node.title)")
            for (snapshot, row) in zip(snapshots, rows) {
                Output.line(line(snapshot) + "  +\(row["words_added"] ?? 0) -\(row["words_removed"] ?? 0) words")
            }
        }

    static let create = Command("snapshot create", synopsis: "store the current version of a document", usage: "PROJECT DOC", about: """
        Stores document DOC's current content as a new version, sealed in the project's compartment;
        with --title it is a named version. An automatic snapshot of content equal to the latest
        version stores nothing and names that version. Prints the version's number and id.

        \(WritingContext.sessionNote)
        """, options: [titleOption] + DocCommands.readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl snapshot create \"The harbour\" Arrival --title \"Sent to the editor\"",
        ]) { arguments in
            let (context, project, node) = try open(arguments)
            defer { context.end() }
            let snapshot = try context.store(for: project) { try $0.createSnapshot(of: node.id, in: project.id, titled: arguments.value("--title")) }
            if arguments.has("--json") { Output.json(json(snapshot)); return }
            Output.line("Version \(snapshot.sequence) of \(node.title): \(snapshot.id).")
        }

    static let list = Command("snapshot list", synopsis: "list a document's stored versions", usage: "PROJECT DOC", about: """
        Lists the stored versions of document DOC of PROJECT, oldest first: number, id, when, how it
        was made (automatic, titled, restore) and its title.

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl snapshot list \"The harbour\" Arrival",
        ]) { arguments in
            let (context, project, node) = try open(arguments)
            defer { context.end() }
            let snapshots = try context.store(for: project) { try $0.snapshots(of: node.id, in: project.id) }
            if arguments.has("--json") { Output.json(snapshots.map(json)); return }
            Output.line("\(snapshots.count) version(s) of \(node.title)")
            for snapshot in snapshots { Output.line(line(snapshot)) }
        }

    static let show = Command("snapshot show", synopsis: "print a stored version of a document", usage: "PROJECT DOC SNAPSHOT", about: """
        Prints version SNAPSHOT of document DOC as text, as 'vaultctl doc show' prints the current
        one. With --json, the version and every block with its id and kind.
        \(snapshotNote)

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 3...3, json: true, examples: [
            "vaultctl snapshot show \"The harbour\" Arrival 2",
        ]) { arguments in
            let (context, project, node) = try open(arguments)
            defer { context.end() }
            let (snapshot, content) = try context.store(for: project) { store in
                try resolve(arguments.positionals[2], in: try store.snapshots(of: node.id, in: project.id)) {
                    try store.snapshotContent($0, of: node.id, in: project.id)
                }
            }
            if arguments.has("--json") {
                var row = json(snapshot)
                row["blocks"] = content.blocks.map { block -> [String: Any] in
                    ["id": block.id.hex, "kind": BlockEncoding.name(of: block.kind), "text": block.text, "rows": block.rows]
                }
                Output.json(row)
                return
            }
            Output.raw(PlainText.render(content, labels: FieldEditor(project.register)))
        }

    static let restore = Command("snapshot restore", synopsis: "make a stored version a document's content again", usage: "PROJECT DOC SNAPSHOT",
                                 about: """
        Makes version SNAPSHOT the content of document DOC again (blocks it kept are not resealed),
        recorded in the audit log, and stores the result as a new version; the versions after
        SNAPSHOT stay, so a restore can itself be undone.
        \(snapshotNote)

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 3...3, json: true, examples: [
            "vaultctl snapshot restore \"The harbour\" Arrival 2",
        ]) { arguments in
            let (context, project, node) = try open(arguments)
            defer { context.end() }
            let (restored, made) = try context.store(for: project) { store in
                try resolve(arguments.positionals[2], in: try store.snapshots(of: node.id, in: project.id)) {
                    try store.restore(node.id, in: project.id, to: $0)
                }
            }
            if arguments.has("--json") { Output.json(["restored": json(restored), "version": json(made)]); return }
            Output.line("Restored \(node.title) to version \(restored.sequence); stored as version \(made.sequence): \(made.id).")
        }

    static let all = [history, create, list, show, restore]

    /// The unlocked vault, PROJECT and DOC (a document).
    static func open(_ arguments: ParsedArguments) throws -> (WritingContext, WritingProject, BinderNode) {
        let context = try WritingContext(arguments)
        let project = try context.project(arguments.positionals[0])
        let node = try context.node(arguments.positionals[1], in: project)
        return (context, project, node)
    }

    /// Runs `body` with SNAPSHOT's id (an id as given, or the id of that number in `snapshots`: the
    /// store refuses another document's) and gives back its listing with the result.
    static func resolve<Result>(_ text: String, in snapshots: [Snapshot], _ body: (SnapshotID) throws -> Result) throws -> (Snapshot, Result) {
        let id: SnapshotID
        if let given = try? SnapshotID(hex: text) {
            id = given
        } else if let number = Int(text), let found = snapshots.first(where: { $0.sequence == number }) {
            id = found.id
        } else {
            throw WritingError(.snapshotNotFound, "no version '\(text)' of the document ('vaultctl snapshot list' shows them)")
        }
        let result = try body(id)
        guard let snapshot = snapshots.first(where: { $0.id == id }) else { throw WritingError(.snapshotNotFound, "no snapshot \(id)") }
        return (snapshot, result)
    }

    static func wordsChanged(_ old: String, _ new: String) throws -> (added: Int, removed: Int) {
        let diff = try WordDiff.between(old, new)
        return (diff.wordCount(.insert), diff.wordCount(.delete))
    }

    static func line(_ snapshot: Snapshot) -> String {
        let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(snapshot.createdAt)))
        return "\(String(snapshot.sequence).padding(toLength: 4, withPad: " ", startingAt: 0)) \(snapshot.id)  \(when)  "
            + "\(snapshot.origin.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))\(snapshot.title ?? "")"
    }

    static func json(_ snapshot: Snapshot) -> [String: Any] {
        ["id": snapshot.id.hex, "number": snapshot.sequence, "origin": snapshot.origin.rawValue, "title": snapshot.title ?? NSNull(),
         "keyframe": snapshot.isKeyframe, "device": snapshot.deviceID.hex, "created_at": snapshot.createdAt]
    }
}
