import CryptoVault
import Foundation
import Registers
import Writing

/// template list, template use: the registers' starter templates.
enum TemplateCommands {
    static let list = Command("template list", synopsis: "list the starter templates", about: """
        Lists the starter templates of a register (or of every register): id, name and register.
        'vaultctl template use' starts a document from one.
        """, options: [Option("--register", value: "REGISTER", "only this register's templates")], json: true, examples: [
            "vaultctl template list --register healthcare",
        ]) { arguments in
            let registers = try WritingContext.register(arguments).map { [$0] } ?? Register.allCases
            let rows = registers.flatMap { register in
                register.profile.templates.map { ["id": $0.id, "name": $0.name, "register": register.rawValue, "blocks": $0.blocks.count] as [String: Any] }
            }
            if arguments.has("--json") { Output.json(rows); return }
            for row in rows { Output.line("\(row["id"]!)\t\(row["register"]!)\t\(row["name"]!)") }
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
            let id = arguments.positionals[1]
            guard let template = ([project.register] + Register.allCases).lazy.compactMap({ $0.profile.template(id) }).first else {
                throw CommandError(message: "no template '\(id)'", exitCode: .noInput, hint: "'vaultctl template list' shows them")
            }
            let parent = try arguments.value("--in").map { try context.node($0, in: project).id }
            let content = DocumentContent(blocks: try template.blocks.map { Block(id: try BlockID.random(), kind: $0.kind, text: $0.text, rows: $0.rows) })
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
