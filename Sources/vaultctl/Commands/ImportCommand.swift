import CryptoVault
import Foundation
import Writing

/// `vaultctl doc import PROJECT TITLE [FILE|-]`: a Markdown or plain text file made a new document,
/// in one audited transaction (the document's `writing.node-add` and its `writing.content-write`
/// commit together or not at all).
enum ImportCommand {
    /// How the file is read: CommonMark through libcmark, or blank-line separated paragraphs.
    enum Format: String, CaseIterable {
        case markdown = "md"
        case text = "txt"

        /// --format, else the file's extension (.md, .markdown, .txt), else Markdown.
        init(_ arguments: ParsedArguments, path: String) throws {
            if let name = arguments.value("--format") {
                guard let format = Format(rawValue: name) else {
                    throw UsageError(message: "unknown format '\(name)' (one of: md, txt)", usage: arguments.usage)
                }
                self = format
                return
            }
            self = URL(fileURLWithPath: path).pathExtension.lowercased() == "txt" ? .text : .markdown
        }

        func parse(_ text: SecureBytes) throws -> DocumentContent {
            self == .markdown ? try MarkdownImport.parse(text) : try PlainTextImport.parse(text)
        }
    }

    static let command = Command("doc import", synopsis: "make a new document from a Markdown or text file", usage: "PROJECT TITLE [FILE|-]", about: """
        Adds a document titled TITLE to PROJECT (at the end of the top level or of the folder --in
        names) holding the blocks of FILE (or standard input, also as -). Markdown is read as
        CommonMark: headings, paragraphs, list items (an ordered one keeps its number), quotes;
        code and HTML as paragraphs of their literal text, inline markup (*emphasis*, links) kept as
        written. Plain text is paragraphs separated by blank lines, nothing read as markup. The format
        is --format, else the file's extension (.md, .markdown, .txt), else Markdown.

        The file is read straight into locked memory (no temporary file) and refused, before
        anything is written, past 16 MiB, when it is not UTF-8, holds a NUL or another control
        character, or nests quotes and lists more than 64 deep. The document and its text are added
        in one transaction.

        \(WritingContext.sessionNote)
        """, options: [Option("--format", value: "FORMAT", "md or txt (default: from FILE's extension, else md)"), DocCommands.inOption]
            + DocCommands.readOptions,
        positionals: 2...3, json: true, examples: [
            "vaultctl doc import \"The harbour\" Arrival arrival.md --in \"Chapter one\"",
            "pbpaste | vaultctl doc import \"Intake notes\" \"Session 3\" --format txt --purpose \"write it up\"",
        ]) { arguments in
            let path = arguments.positionals.count > 2 ? arguments.positionals[2] : "-"
            let format = try Format(arguments, path: path)
            // Read and parsed before the vault is opened: a hostile file is refused having touched nothing.
            let content = try format.parse(try DocCommands.readText(path))
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let parent = try arguments.value("--in").map { try context.node($0, in: project).id }
            let node = try context.store(for: project) { store in
                let node = try store.addNode(.scene, titled: arguments.positionals[1], in: project.id, under: parent)
                // A writer's edit: a new document of 500 characters or more is snapshotted, and so is the one left.
                try store.editDocumentContent(of: node.id, in: project.id, with: content)
                return node
            }
            if arguments.has("--json") {
                var row = DocCommands.json(node, project.register)
                row["format"] = format.rawValue
                row["blocks"] = content.blocks.count
                Output.json(row)
                return
            }
            Output.line("Imported \(WritingContext.term(.scene, project.register)) \(node.id): \(content.blocks.count) block(s) sealed.")
        }
}
