import CryptoVault
import Foundation
import Registers
import Writing

/// template list, template use: the registers' starter templates.
enum TemplateCommands {
    static let list = Command("template list", synopsis: "list the starter templates", about: """
        Lists the starter templates of a register (or of every register): id, name and register.
        'vaultctl template use' starts a document from one.
        """, options: [RegisterLibrary.registerOption("templates")], json: true, examples: [
            "vaultctl template list --register healthcare",
        ]) { arguments in
            try RegisterLibrary.list(arguments, \.templates)
        }

    static let use = Command("template use", synopsis: "start a document from a template", usage: "PROJECT TEMPLATE", about: """
        Adds a document to PROJECT (its name or id) whose blocks are TEMPLATE's (an id from
        'vaultctl template list'; the project's register's templates are looked at first), titled
        --title or the template's name, at the end of the top level or of the folder --in names.

        \(WritingContext.sessionNote)
        """, options: [Option("--title", value: "TITLE", "the new document's title (default: the template's name)"), DocCommands.inOption]
            + DocCommands.readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl template use \"Intake notes\" soap-note --title \"Session 4\" --purpose \"session notes\"",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let template = try RegisterLibrary.find(arguments.positionals[1], for: project, kind: "template", in: \.templates)
            let parent = try arguments.value("--in").map { try context.node($0, in: project).id }
            let content = DocumentContent(blocks: try RegisterLibrary.newBlocks(of: template))
            let node = try context.store(for: project) { store in
                let node = try store.addNode(.scene, titled: arguments.value("--title") ?? template.name, in: project.id, under: parent)
                // A writer's edit: a new document of 500 characters or more is snapshotted, and so is the one left.
                try store.editDocumentContent(of: node.id, in: project.id, with: content)
                return node
            }
            if arguments.has("--json") { Output.json(DocCommands.json(node, project.register).merging(["template": template.id]) { $1 }); return }
            Output.line("Added \(WritingContext.term(.scene, project.register)) \(node.id) from template \(template.id).")
        }
}
