import CryptoVault
import Foundation
import Registers
import Writing

/// doc add, list, show, write, move, rm: a project's documents and folders, in its register's words.
enum DocCommands {
    static let inOption = Option("--in", value: "CHAPTER", "the folder (its title or id) to put it in (default: the top level)")
    static let readOptions = [WritingContext.purposeOption] + Credentials.options

    static let add = Command("doc add", synopsis: "add a document (or a folder) to a project", usage: "PROJECT TITLE", about: """
        Adds a document titled TITLE to PROJECT (its name or id), at the end of the top level or of
        the folder --in names; --folder adds a folder instead. Prints the new id. A document starts
        empty: 'vaultctl doc write' gives it text, 'vaultctl template use' a template's.

        \(WritingContext.sessionNote)
        """, options: [inOption, Option("--folder", "add a folder (a chapter, a legal section) rather than a document")] + readOptions,
        positionals: 2...2, json: true, examples: [
            "vaultctl doc add \"The harbour\" \"Chapter one\" --folder",
            "vaultctl doc add \"The harbour\" \"Arrival\" --in \"Chapter one\"",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let parent = try arguments.value("--in").map { try context.node($0, in: project).id }
            let kind: NodeKind = arguments.has("--folder") ? .chapter : .scene
            let node = try context.store(for: project) { try $0.addNode(kind, titled: arguments.positionals[1], in: project.id, under: parent) }
            if arguments.has("--json") { Output.json(json(node, project.register)); return }
            Output.line("Added \(WritingContext.term(of: kind, project.register)) \(node.id).")
        }

    static let list = Command("doc list", synopsis: "list a project's documents and folders", usage: "PROJECT", about: """
        Lists PROJECT's folders and documents in reading order, indented by folder, each with its id,
        in the register's words (a legal project lists documents and sections).

        \(WritingContext.sessionNote)
        """, options: readOptions + [KeptCopies.readOption], positionals: 1...1, json: true, examples: [
            "vaultctl doc list \"The harbour\"",
            "vaultctl doc list \"Smith v. Jones\" --purpose \"prepare the hearing\" --json",
        ]) { arguments in
            try KeptCopies.readIfAsked(arguments)
            let context = try WritingContext(arguments)
            defer { context.end() }
            let (project, nodes, outline) = try KeptCopies.reading(arguments) {
                let project = try context.project(arguments.positionals[0])
                let (nodes, outline) = try context.store(for: project) { (try $0.nodes(in: project.id), try $0.outline(of: project.id)) }
                return (project, nodes, outline)
            }
            try KeptCopies.recordRead(arguments, command: "doc list", project: project.id)
            let register = project.register
            if arguments.has("--json") {
                Output.json(zip(nodes, outline).map { node, line in
                    var row = json(node, register)
                    row["depth"] = line.depth
                    return row
                })
                return
            }
            let documents = nodes.filter { $0.kind == .scene }.count, folders = nodes.count - documents
            Output.line("\(documents) \(WritingContext.term(.scene, register, plural: documents != 1)), "
                        + "\(folders) \(WritingContext.term(.chapter, register, plural: folders != 1))")
            for (node, line) in zip(nodes, outline) {
                let label = WritingContext.term(of: node.kind, register).padding(toLength: 10, withPad: " ", startingAt: 0)
                Output.line("\(node.id)  \(label) \(String(repeating: "  ", count: line.depth - 1))\(node.title)")
            }
        }

    static let show = Command("doc show", synopsis: "print a document", usage: "PROJECT DOC", about: """
        Prints document DOC (its title or id) of PROJECT as text: headings as '#', list items as
        '- ', quotes as '> ', tables as '| cell | cell |' rows, field blocks as 'Label: text' in the
        register's words, paragraphs separated by blank lines; a line that would read as another
        kind is printed after a '\\'. It is the form 'vaultctl doc write' reads: written back, every
        block keeps its kind, field, cells and id. With --json, every block with its id and kind.

        It also says which version of the document this is (on stderr; 'version' with --json): a
        snapshot, taken now if no snapshot holds this text yet. Give it to 'vaultctl doc write
        --base VERSION' when you write the text back, so that what a sync or another command
        changed meanwhile is merged rather than overwritten.

        With --read-only and --vault VAULT/damaged/NAME, reads a document of a copy 'vaultctl repair
        --from' kept (words only it holds): from a copy of its files in memory, writing nothing to it
        and taking no version.

        \(WritingContext.sessionNote)
        """, options: readOptions + [KeptCopies.readOption], positionals: 2...2, json: true, examples: [
            "vaultctl doc show \"Smith v. Jones\" \"Memo\" --purpose \"review before filing\"",
            "vaultctl doc show \"The harbour\" Arrival --json",
        ]) { arguments in
            try KeptCopies.readIfAsked(arguments)
            let context = try WritingContext(arguments)
            defer { context.end() }
            let (project, node, content, version) = try KeptCopies.reading(arguments) {
                let project = try context.project(arguments.positionals[0])
                let node = try context.node(arguments.positionals[1], in: project)
                let (content, version) = try context.store(for: project) { store in
                    // The in-memory mode writes nothing, not even the version a write could start from.
                    (try store.documentContent(of: node.id, in: project.id),
                     InMemoryMode.reason == nil ? try store.versionForReading(of: node.id, in: project.id) : nil)
                }
                return (project, node, content, version)
            }
            try KeptCopies.recordRead(arguments, command: "doc show", project: project.id, document: node.id)
            if arguments.has("--json") {
                var row = json(node, project.register)
                if let version { row["version"] = version.hex }
                row["blocks"] = content.blocks.map { block -> [String: Any] in
                    ["id": block.id.hex, "kind": BlockEncoding.name(of: block.kind), "text": block.text, "rows": block.rows]
                }
                Output.json(row)
                return
            }
            Output.raw(PlainText.render(content, labels: FieldEditor(project.register)))
            if let version { Output.note("vaultctl: this is version \(version.hex) of \(node.id) (to write it back: 'vaultctl doc write ... --base \(version.hex)')") }
        }

    static let write = Command("doc write", synopsis: "replace a document's text", usage: "PROJECT DOC [FILE|-]", about: """
        Replaces document DOC's content with the text of FILE (or standard input, also as -), read
        straight into memory (no temporary file), in the form 'vaultctl doc show' prints: paragraphs
        separated by blank lines, '#' to '######' headings, '- ' list items, '> ' quotes, '| a | b |'
        table rows (in a cell '\\|' is a bar, '\\\\' a backslash, '\\n' a line break), 'Label: text'
        fields (the register's labels of a document's fields, or a field's own name), and after a
        '\\' a line taken as it is. A line starting with '|' that is not a table row is refused with
        its number, and nothing is written. Blocks that did not change keep their ids and are not
        resealed, so a one-paragraph edit reseals one block. The text must be UTF-8 and at most 16 MiB.

        With --base VERSION (the version 'vaultctl doc show' printed when you read the text), a
        document that changed since (a sync brought words, another command wrote) is merged with your
        text instead of overwritten: what only one side changed is kept from that side; where both
        changed the same paragraphs your text goes in, and the document's words there are kept in a
        branch of kind sync-conflict ('vaultctl conflicts' lists it; 'vaultctl branch adopt' puts
        them back). Without --base the document is replaced, as you wrote it; words it held that
        came from elsewhere since its latest snapshot are kept first as a version ('vaultctl
        history'), so nothing is lost without a version or a branch that holds it. A block with an
        open sync conflict that the write changes is named ("block N has an open sync conflict"):
        the write decides nothing, the conflict's branch stays open until adopted or discarded.

        Each write is an edit of this device's writing in the project: an automatic snapshot is taken
        after 3 minutes of active editing (writes at most 30 seconds apart), every 500 characters of
        change, and when you write another document of the project than the last one (of the one you
        left, if it changed), counted across commands ('vaultctl history' lists them).

        \(WritingContext.sessionNote)
        """, options: [Option("--base", value: "VERSION", "merge with what changed since VERSION ('doc show' prints it)")]
            + readOptions, positionals: 2...3, json: true, examples: [
            "vaultctl doc write \"The harbour\" Arrival arrival.txt",
            "vaultctl doc write \"The harbour\" Arrival arrival.txt --base VERSION",
            "pbpaste | vaultctl doc write \"Intake notes\" \"Session 3\" --purpose \"write up the session\"",
        ]) { arguments in
            let text = try readText(arguments.positionals.count > 2 ? arguments.positionals[2] : "-")
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let node = try context.node(arguments.positionals[1], in: project)
            let parsed = try PlainText.parse(text, labels: FieldEditor(project.register))
            let base = try arguments.value("--base").map { text in
                guard let id = try? SnapshotID(hex: text) else {
                    throw WritingError(.snapshotNotFound, "--base takes the version 'vaultctl doc show' printed (32 hex digits), not '\(text)'")
                }
                return id
            }
            var conflicted: [Int] = []
            let written = try context.store(for: project) { store in
                let open = try ConflictSidesText.openConflictBlocks(of: node.id, in: project.id, store)
                let before = open.isEmpty ? [] : try store.documentContent(of: node.id, in: project.id).blocks
                let written = try store.writeDocument(parsed, of: node.id, in: project.id, base: base)
                if !open.isEmpty {
                    conflicted = ConflictSidesText.written(open, before: before, after: try store.documentContent(of: node.id, in: project.id).blocks)
                }
                return written
            }
            let edited = written.edited, change = edited.change
            if arguments.has("--json") {
                var row: [String: Any] = ["id": node.id.hex, "sealed": change.sealed, "kept": change.kept, "removed": change.removed,
                                          "snapshots": edited.autoSnapshots.map(autoSnapshotJSON), "merged": written.merged,
                                          "conflicts": written.conflicts]
                if let before = written.before { row["replaced_version"] = before.hex }
                if let branch = written.branch { row["branch"] = branch.hex }
                if !conflicted.isEmpty { row["open_conflict_blocks"] = conflicted }
                Output.json(row)
                return
            }
            Output.line("Wrote \(WritingContext.term(.scene, project.register)) \(node.id): \(change.sealed) block(s) sealed, "
                        + "\(change.kept) unchanged, \(change.removed) removed.")
            if written.merged {
                Output.line("It had changed since version \(base?.hex ?? ""): your text was merged with those changes"
                            + (written.conflicts == 0 ? "." : "; in \(written.conflicts) place(s) both changed, your text is in the document and its "
                               + "words there are kept in branch \(written.branch?.hex ?? "") ('vaultctl branch adopt' puts them back)."))
            }
            if let before = written.before, before != base { Output.line("The text it replaced is kept as version \(before.hex) ('vaultctl history').") }
            for block in conflicted { Output.line("block \(block) has an open sync conflict (vaultctl conflicts)") }
            for taken in edited.autoSnapshots {
                Output.line("Automatic snapshot \(taken.snapshot.sequence) of \(taken.snapshot.document) (\(describe(taken.triggers, project.register))): "
                            + "\(taken.snapshot.id)")
            }
        }

    /// An automatic snapshot a write took, as --json gives it.
    static func autoSnapshotJSON(_ taken: AutoSnapshot) -> [String: Any] {
        ["id": taken.snapshot.id.hex, "document": taken.snapshot.document.hex, "sequence": taken.snapshot.sequence,
         "triggers": taken.triggers.map(\.rawValue).sorted()]
    }

    /// Why it was taken, in the register's words.
    static func describe(_ triggers: Set<AutoSnapshotTrigger>, _ register: Register) -> String {
        AutoSnapshotTrigger.allCases.filter(triggers.contains).map { trigger in
            switch trigger {
            case .activeEditing: "3 minutes of editing"
            case .characterCount: "500 characters changed"
            case .documentSwitch: "left for another \(WritingContext.term(.scene, register))"
            }
        }.joined(separator: ", ")
    }

    static let move = Command("doc move", synopsis: "move a document or folder", usage: "PROJECT DOC", about: """
        Moves DOC (a document or a folder, by title or id) of PROJECT into the folder --in names, or to
        the top level with --top; --before puts it just before that item, else it goes last. It keeps
        its id and content, and a folder takes everything in it along. A folder cannot move into itself.

        \(WritingContext.sessionNote)
        """, options: [inOption, Option("--top", "move it to the project's top level"),
                       Option("--before", value: "DOC", "the item (title or id) to place it before")] + readOptions,
        positionals: 2...2, json: true, examples: [
            "vaultctl doc move \"The harbour\" Arrival --in \"Chapter two\"",
            "vaultctl doc move \"The harbour\" Epilogue --top --before Arrival",
        ]) { arguments in
            guard arguments.has("--top") != (arguments.value("--in") != nil) else {
                throw UsageError(message: "say where: --in CHAPTER or --top (one of them)", usage: arguments.usage)
            }
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let node = try context.node(arguments.positionals[1], in: project)
            let parent = try arguments.value("--in").map { try context.node($0, in: project).id }
            let before = try arguments.value("--before").map { try context.node($0, in: project).id }
            try context.store(for: project) { try $0.moveNode(node.id, in: project.id, under: parent, before: before) }
            if arguments.has("--json") { Output.json(["id": node.id.hex, "parent": parent?.hex ?? NSNull()]); return }
            Output.line("Moved \(WritingContext.term(of: node.kind, project.register)) \(node.id).")
        }

    static let remove = Command("doc rm", synopsis: "remove a document or an empty folder", usage: "PROJECT DOC --yes", about: """
        Removes document DOC (title or id) of PROJECT with all its blocks, or an empty folder. It
        cannot be brought back (except from a backup): --yes confirms; on a terminal without --yes
        you are asked to type YES.

        \(WritingContext.sessionNote)
        """, options: [Option("--yes", "confirm the removal")] + readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl doc rm \"The harbour\" \"Old draft\" --yes",
        ]) { arguments in
            try Confirmation.require(arguments.has("--yes"), flag: "--yes",
                                     consequence: "removing '\(arguments.positionals[1])' deletes it and its text from the vault for good")
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let node = try context.node(arguments.positionals[1], in: project)
            try context.store(for: project) { try $0.removeNode(node.id, in: project.id) }
            if arguments.has("--json") { Output.json(["removed": node.id.hex]); return }
            Output.line("Removed \(WritingContext.term(of: node.kind, project.register)) \(node.id).")
        }

    static let all = [add, list, show, write, move, remove]

    static func json(_ node: BinderNode, _ register: Register) -> [String: Any] {
        ["id": node.id.hex, "kind": node.kind.rawValue, "label": WritingContext.term(of: node.kind, register), "title": node.title,
         "parent": node.parent?.hex ?? NSNull()]
    }

    /// The text of FILE or standard input, read straight into locked memory (SecureBytes: never an
    /// ordinary buffer, so no unwiped copy of the plaintext is left behind): at most the document
    /// limit and one byte more (enough to know it is over), so a hostile stream is never read whole.
    /// doc write, doc import and branch create read their text through here.
    static func readText(_ path: String) throws -> SecureBytes {
        let descriptor = path == "-" ? StandardStreams.current.input : try FileDescriptor.openForReading(path)
        let limit = WritingLimits.maximumStoredDocumentBytes
        let buffer = try SecureBytes(count: limit + 1)
        let count = try buffer.withUnsafeMutableBytes { try descriptor.readFully(into: $0) }
        guard count <= limit else {
            throw WritingError(.documentTooLarge, "the text is over \(limit) bytes, the most one text may hold")
        }
        return try buffer.slice(0..<count)
    }
}
