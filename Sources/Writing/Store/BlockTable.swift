import CryptoVault

/// The `writing_blocks` table, read and written here only: each block's id, document, position and
/// kind in clear. Its text is a sealed record (`WritingRecord.block`).
struct BlockTable {
    let database: Database

    /// The id in the row at `rowid`, whatever it holds (a damaged row's, `WritingRowMend`).
    func id(atRowid rowid: Int64) throws -> [UInt8]? {
        try database.queryOne("SELECT id FROM writing_blocks WHERE rowid = ?", [.integer(rowid)])?.blob("id")
    }

    /// The positions of the other blocks of the document the row at `rowid` names.
    func positions(besideRowid rowid: Int64) throws -> [Int64] {
        try database.query("""
            SELECT position FROM writing_blocks WHERE node_id = (SELECT node_id FROM writing_blocks WHERE rowid = ?) AND rowid <> ?
            """, [.integer(rowid), .integer(rowid)]).map { try $0.integer("position") }
    }

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

    /// The id bytes of a document's blocks as stored (none parsed), in no particular order.
    func idBytes(in document: NodeID) throws -> Set<[UInt8]> {
        Set(try database.query("SELECT id FROM writing_blocks WHERE node_id = ?", [.blob(document.bytes)]).map { try $0.blob("id") })
    }

    /// The document a block belongs to, or nil if no block has the id.
    func document(of id: BlockID) throws -> NodeID? {
        try database.queryOne("SELECT node_id FROM writing_blocks WHERE id = ?", [.blob(id.bytes)])
            .map { try NodeID(bytes: try $0.blob("node_id")) }
    }

    /// The blocks of `project`'s documents, each with its document, as `WritingStore.links(of:)`
    /// compares them with the project's records.
    func linkedRows(inDocumentsOf project: ProjectID) throws -> [LinkedRow] {
        try database.query("SELECT rowid, id, node_id, position FROM writing_blocks WHERE node_id IN (\(NodeTable.idsInProject))",
                           [.blob(project.bytes)]).compactMap { try? LinkedRow($0, link: "node_id") }
    }

    /// The block with id `id`, whatever its node_id holds, with its position, or nil.
    func linkedRow(_ id: [UInt8]) throws -> LinkedRow? {
        try database.queryOne("SELECT rowid, id, node_id, position FROM writing_blocks WHERE id = ?", [.blob(id)])
            .flatMap { try? LinkedRow($0, link: "node_id") }
    }

    /// Puts back the node_id of the row at `rowid` (`LinkMend`).
    func setDocument(ofRowid rowid: Int64, to document: [UInt8]) throws {
        try database.query("UPDATE writing_blocks SET node_id = ? WHERE rowid = ?", [.blob(document), .integer(rowid)])
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
