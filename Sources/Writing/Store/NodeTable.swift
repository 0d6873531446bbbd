import CryptoVault

/// The `writing_nodes` table, read and written here only: the binder's structure in clear (id,
/// project, parent folder, kind, order key, time). Titles are sealed records (`WritingRecord.nodeTitle`).
struct NodeTable {
    let database: Database

    /// The id in the row at `rowid`, whatever it holds (a damaged row's, `WritingRowMend`).
    func id(atRowid rowid: Int64) throws -> [UInt8]? {
        try database.queryOne("SELECT id FROM writing_nodes WHERE rowid = ?", [.integer(rowid)])?.blob("id")
    }

    /// SQL: `expression` over the node (as `document`) whose id is `idColumn`'s (`DamagedWritingRow`).
    static func select(_ expression: String, ofDocument idColumn: String) -> String {
        "(SELECT \(expression) FROM writing_nodes AS document WHERE document.id = \(idColumn))"
    }

    /// SQL for the ids of the nodes of the project bound to its one `?` (`LinkedRow`: the blocks and
    /// branches of a project's documents, by their tables' index of `node_id`).
    static let idsInProject = "SELECT id FROM writing_nodes WHERE project_id = ?"

    /// `project`'s nodes as `WritingStore.links(of:)` compares them with its records.
    func linkedRows(in project: ProjectID) throws -> [LinkedRow] {
        try database.query("SELECT rowid, id, project_id FROM writing_nodes WHERE project_id = ?", [.blob(project.bytes)])
            .compactMap { try? LinkedRow($0, link: "project_id") }
    }

    /// The node with id `id`, whatever its project_id holds, or nil.
    func linkedRow(_ id: [UInt8]) throws -> LinkedRow? {
        try database.queryOne("SELECT rowid, id, project_id FROM writing_nodes WHERE id = ?", [.blob(id)])
            .flatMap { try? LinkedRow($0, link: "project_id") }
    }

    /// Puts back the project_id of the row at `rowid` (`LinkMend`).
    func setProject(ofRowid rowid: Int64, to project: [UInt8]) throws {
        try database.query("UPDATE writing_nodes SET project_id = ? WHERE rowid = ?", [.blob(project), .integer(rowid)])
    }

    /// SQL: whether `idColumn` holds the id of a node of the project bound to `?` (`DamagedWritingRow`'s
    /// scan of one project's blocks, by this table's index on its project).
    static func isOfProject(_ idColumn: String) -> String {
        "\(idColumn) IN (\(idsInProject))"
    }

    struct Row: Equatable {
        let id: NodeID
        let kind: NodeKind
        var parent: NodeID?
        var orderKey: String
        let createdAt: Int64
    }

    func insert(_ row: Row, in project: ProjectID) throws {
        try database.query("""
            INSERT INTO writing_nodes (id, project_id, parent_id, kind, order_key, created_at) VALUES (?, ?, ?, ?, ?, ?)
            """, [.blob(row.id.bytes), .blob(project.bytes), row.parent.map { .blob($0.bytes) } ?? .null, .text(row.kind.rawValue),
                  .text(row.orderKey), .integer(row.createdAt)])
    }

    /// Every node of `project`, in no particular order (`Binder` orders them).
    func all(in project: ProjectID) throws -> [Row] {
        try database.query("SELECT * FROM writing_nodes WHERE project_id = ?", [.blob(project.bytes)]).map(decode)
    }

    /// One node's row and its project, or nil if no node has the id.
    func row(_ id: NodeID) throws -> (row: Row, project: ProjectID)? {
        try database.queryOne("SELECT * FROM writing_nodes WHERE id = ?", [.blob(id.bytes)])
            .map { (try decode($0), try ProjectID(bytes: try $0.blob("project_id"))) }
    }

    /// The project a node belongs to, or nil if no node has the id.
    func project(of id: NodeID) throws -> ProjectID? {
        try database.queryOne("SELECT project_id FROM writing_nodes WHERE id = ?", [.blob(id.bytes)])
            .map { try ProjectID(bytes: try $0.blob("project_id")) }
    }

    func move(_ id: NodeID, under parent: NodeID?, orderKey: String) throws {
        try database.query("UPDATE writing_nodes SET parent_id = ?, order_key = ? WHERE id = ?",
                           [parent.map { .blob($0.bytes) } ?? .null, .text(orderKey), .blob(id.bytes)])
    }

    func delete(_ id: NodeID) throws {
        try database.query("DELETE FROM writing_nodes WHERE id = ?", [.blob(id.bytes)])
    }

    private func decode(_ row: CryptoVault.Row) throws -> Row {
        guard let kind = NodeKind(rawValue: try row.text("kind")), OrderKey.isValid(try row.text("order_key")) else {
            throw WritingError(.damagedRecord, "a writing_nodes row has an unknown kind or a malformed order key")
        }
        let parent: NodeID? = if case .blob(let bytes) = row["parent_id"] { try NodeID(bytes: bytes) } else { nil }
        return Row(id: try NodeID(bytes: try row.blob("id")), kind: kind, parent: parent, orderKey: try row.text("order_key"),
                   createdAt: try row.integer("created_at"))
    }
}
