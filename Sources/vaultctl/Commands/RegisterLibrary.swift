import CryptoVault
import Registers
import Writing

/// What `snippet` and `template` share: the registers' libraries of named block lists. Their list
/// commands, the lookup of an id and the copy into a document are written once here.
protocol RegisterLibraryItem {
    var id: String { get }
    var name: String { get }
    var blocks: [TemplateBlock] { get }
}

extension Snippet: RegisterLibraryItem {}
extension Template: RegisterLibraryItem {}

enum RegisterLibrary {
    /// The `--register` filter of a list of the registers' `things` (declared once, its help generated).
    static func registerOption(_ things: String) -> Option {
        Option("--register", value: "REGISTER", "only this register's \(things)")
    }

    /// Lists the items `library` gives for each register (`--register`: one): id, register and name
    /// a line, or JSON objects with the count of their blocks.
    static func list<Item: RegisterLibraryItem>(_ arguments: ParsedArguments, _ library: (RegisterProfile) -> [Item]) throws {
        let registers = try WritingContext.register(arguments).map { [$0] } ?? Register.allCases
        let rows = registers.flatMap { register in
            library(register.profile).map { ["id": $0.id, "name": $0.name, "register": register.rawValue, "blocks": $0.blocks.count] as [String: Any] }
        }
        if arguments.has("--json") { Output.json(rows); return }
        for row in rows { Output.line("\(row["id"]!)\t\(row["register"]!)\t\(row["name"]!)") }
    }

    /// The item `id` names, the project's register's library first, then every register's; a
    /// missing one is an error naming the command that lists them.
    static func find<Item: RegisterLibraryItem>(_ id: String, for project: WritingProject, kind: String,
                                                in library: (RegisterProfile) -> [Item]) throws -> Item {
        for register in [project.register] + Register.allCases {
            if let item = library(register.profile).first(where: { $0.id == id }) { return item }
        }
        throw CommandError(message: "no \(kind) '\(id)'", exitCode: .noInput, hint: "'vaultctl \(kind) list' shows them")
    }

    /// The item's blocks as new blocks of a document (each with a fresh id).
    static func newBlocks(of item: some RegisterLibraryItem) throws -> [Block] {
        try item.blocks.map { Block(id: try BlockID.random(), kind: $0.kind, text: $0.text, rows: $0.rows) }
    }
}
