import CryptoVault
import Foundation
import Registers
import Writing

/// snippet list, snippet insert: the registers' snippet libraries (standard phrases, a risk screen,
/// a disclaimer), put into a document as blocks.
enum SnippetCommands {
    static let list = Command("snippet list", synopsis: "list the registers' snippets", about: """
        Lists the snippet library of a register (or of every register): id, register and name.
        'vaultctl snippet insert' puts one into a document.
        """, options: [RegisterLibrary.registerOption("snippets")], json: true, examples: [
            "vaultctl snippet list --register healthcare",
        ]) { arguments in
            try RegisterLibrary.list(arguments, \.snippets)
        }

    static let insert = Command("snippet insert", synopsis: "put a snippet into a document", usage: "PROJECT DOC SNIPPET", about: """
        Inserts the blocks of SNIPPET (an id from 'vaultctl snippet list'; the project's register's
        snippets are looked at first) into document DOC of PROJECT: at the end, or before block
        number --at N (1 is the first). It is an edit of the document as 'vaultctl doc write' is:
        the other blocks are kept as they are, and the automatic snapshots count it.

        \(WritingContext.sessionNote)
        """, options: [Option("--at", value: "N", "put it before the document's Nth block (default: at the end)")] + DocCommands.readOptions,
        positionals: 3...3, json: true, examples: [
            "vaultctl snippet insert \"Intake notes\" \"Session 3\" next-appointment --purpose \"the plan\"",
            "vaultctl snippet insert \"The harbour\" Arrival scene-break --at 2",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let node = try context.node(arguments.positionals[1], in: project)
            let snippet = try RegisterLibrary.find(arguments.positionals[2], for: project, kind: "snippet", in: \.snippets)
            let blocks = try RegisterLibrary.newBlocks(of: snippet)
            let at = try arguments.integer("--at", in: 1...WritingLimits.maximumBlocks)
            let edited = try context.store(for: project) { store in
                var content = try store.documentContent(of: node.id, in: project.id)
                let position = min((at ?? Int.max) - 1, content.blocks.count)
                content.blocks.insert(contentsOf: blocks, at: position)
                return try store.editDocumentContent(of: node.id, in: project.id, with: content)
            }
            if arguments.has("--json") {
                Output.json(["id": node.id.hex, "snippet": snippet.id, "blocks": blocks.map(\.id.hex),
                             "snapshots": edited.autoSnapshots.map(DocCommands.autoSnapshotJSON)])
                return
            }
            Output.line("Inserted snippet \(snippet.id) into \(WritingContext.term(.scene, project.register)) \(node.id): \(blocks.count) block(s).")
        }
}
