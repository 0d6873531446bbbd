import Registers

/// One block of a document: a paragraph, a heading, a list item, a quote, a table or a register's
/// structured field. Its id is stable for its life, whatever is written in it or wherever it moves,
/// so versions, branches and sync can say "this block" across edits.
///
/// `text` is what the person wrote. A table keeps its cells in `rows` (the first row the header)
/// and an empty `text`; every other kind has no rows.
public struct Block: Sendable, Hashable {
    public let id: BlockID
    public var kind: BlockKind
    public var text: String
    public var rows: [[String]]

    public init(id: BlockID, kind: BlockKind, text: String = "", rows: [[String]] = []) {
        self.id = id
        self.kind = kind
        self.text = text
        self.rows = rows
    }
}
