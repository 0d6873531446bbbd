/// The kinds of block a template or snippet is made of: the writing model's block kinds.
public enum BlockKind: Sendable, Equatable, Hashable {
    case paragraph
    /// A heading, level 1 (the document's title) to 6.
    case heading(level: Int)
    case listItem
    case quote
    /// A table; its cells are in `TemplateBlock.rows`, the first row the header.
    case table
    /// A structured field; its label comes from the register's `FieldEditor`, its text is a prompt.
    case field(FieldSlot)
}

/// One block of a starter template or snippet. `text` is the block's starting text, or for a
/// prompt the guidance shown until the writer replaces it; a table's text is empty and its
/// cells are in `rows`.
public struct TemplateBlock: Sendable, Equatable, Hashable {
    public let kind: BlockKind
    public let text: String
    public let rows: [[String]]

    public init(_ kind: BlockKind, _ text: String = "", rows: [[String]] = []) {
        self.kind = kind
        self.text = text
        self.rows = rows
    }

    public static func title(_ text: String) -> TemplateBlock { TemplateBlock(.heading(level: 1), text) }
    public static func section(_ text: String) -> TemplateBlock { TemplateBlock(.heading(level: 2), text) }
    public static func subsection(_ text: String) -> TemplateBlock { TemplateBlock(.heading(level: 3), text) }
    public static func paragraph(_ text: String) -> TemplateBlock { TemplateBlock(.paragraph, text) }
    public static func item(_ text: String) -> TemplateBlock { TemplateBlock(.listItem, text) }
    public static func quote(_ text: String) -> TemplateBlock { TemplateBlock(.quote, text) }
    public static func table(_ rows: [[String]]) -> TemplateBlock { TemplateBlock(.table, rows: rows) }
    public static func field(_ slot: FieldSlot, _ prompt: String = "") -> TemplateBlock { TemplateBlock(.field(slot), prompt) }

    /// Every string of the block a person or a prompt will read.
    public var strings: [String] { [text] + rows.flatMap { $0 } }
}

/// A starter template: a named list of blocks a new document begins with.
public struct Template: Sendable, Equatable, Identifiable {
    /// Stable across versions, for `vaultctl template use ID`: lower case words joined by "-".
    public let id: String
    public let name: String
    public let blocks: [TemplateBlock]

    public init(id: String, name: String, blocks: [TemplateBlock]) {
        self.id = id
        self.name = name
        self.blocks = blocks
    }

    /// The texts of the headings of `level`, in order.
    public func headings(level: Int) -> [String] {
        blocks.compactMap { $0.kind == .heading(level: level) ? $0.text : nil }
    }
}

/// A reusable piece of text a writer inserts (a standard phrase, a disclaimer, a checklist).
public struct Snippet: Sendable, Equatable, Identifiable {
    public let id: String
    public let name: String
    public let blocks: [TemplateBlock]

    public init(id: String, name: String, blocks: [TemplateBlock]) {
        self.id = id
        self.name = name
        self.blocks = blocks
    }
}
