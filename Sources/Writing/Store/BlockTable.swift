import CryptoVault

/// The `writing_blocks` table, read and written here only: each block's id, document, position and
/// kind in clear. Its text is a sealed record (`WritingRecord.block`).
struct BlockTable {
    let database: Database

    struct Row: Equatable {
        let id: BlockID
        var position: Int
        let kind: String
    }

    /// The blocks of a document, in reading order.
    func all(in document: NodeID) throws -> [Row] {
        try database.query("SELECT id, position, kind FROM writing_blocks WHERE node_id = ? ORDER BY position",
                           [.blob(document.bytes)]).map { row in
            Row(id: try BlockID(bytes: try row.blob("id")), position: try row.nonNegativeInteger("position"), kind: try row.text("kind"))
        }
    }

    /// The document a block belongs to, or nil if no block has the id.
    func document(of id: BlockID) throws -> NodeID? {
        try database.queryOne("SELECT node_id FROM writing_blocks WHERE id = ?", [.blob(id.bytes)])
            .map { try NodeID(bytes: try $0.blob("node_id")) }
    }

    func insert(_ row: Row, in document: NodeID) throws {
        try database.query("INSERT INTO writing_blocks (id, node_id, position, kind) VALUES (?, ?, ?, ?)",
                           [.blob(row.id.bytes), .blob(document.bytes), .integer(Int64(row.position)), .text(row.kind)])
    }

    func setPosition(_ id: BlockID, _ position: Int) throws {
        try database.query("UPDATE writing_blocks SET position = ? WHERE id = ?", [.integer(Int64(position)), .blob(id.bytes)])
    }

    /// A block whose content changed kind (a paragraph made a heading) keeps its id and row.
    func setKind(_ id: BlockID, _ kind: String) throws {
        try database.query("UPDATE writing_blocks SET kind = ? WHERE id = ?", [.text(kind), .blob(id.bytes)])
    }

    func delete(_ id: BlockID) throws {
        try database.query("DELETE FROM writing_blocks WHERE id = ?", [.blob(id.bytes)])
    }
}
