import CryptoVault

/// The `writing_branches` table, read and written here only: each branch's id, project, document,
/// base snapshot, kind, state, number of sealed parts, times and, once adopted, the snapshots
/// before and after the adoption, all in clear. Its provenance and content are sealed records
/// (`WritingRecord.branchProvenance`, `.branchPart`).
struct BranchTable {
    let database: Database

    struct Row: Equatable {
        let id: BranchID
        let project: ProjectID
        let document: NodeID
        let base: SnapshotID
        let kind: BranchKind
        var state: BranchState
        let parts: Int
        let createdAt: Int64
        var decidedAt: Int64?
        var beforeAdoption: SnapshotID?
        var adoption: SnapshotID?
    }

    func insert(_ row: Row) throws {
        try database.query("""
            INSERT INTO writing_branches (id, project_id, node_id, base_snapshot_id, kind, state, parts, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [.blob(row.id.bytes), .blob(row.project.bytes), .blob(row.document.bytes), .blob(row.base.bytes),
                  .text(row.kind.rawValue), .text(row.state.rawValue), .integer(Int64(row.parts)), .integer(row.createdAt)])
    }

    func row(_ id: BranchID) throws -> Row? {
        try database.queryOne("SELECT * FROM writing_branches WHERE id = ?", [.blob(id.bytes)]).map(decode)
    }

    /// A document's branches, oldest first.
    func all(of document: NodeID) throws -> [Row] {
        try database.query("SELECT * FROM writing_branches WHERE node_id = ? ORDER BY created_at, rowid",
                           [.blob(document.bytes)]).map(decode)
    }

    /// A project's branches, oldest first (what sync compares, SECURITY.md §19.3).
    func all(inProject project: ProjectID) throws -> [Row] {
        try database.query("SELECT * FROM writing_branches WHERE project_id = ? ORDER BY created_at, rowid", [.blob(project.bytes)]).map(decode)
    }

    /// The branches of `project`'s documents (by the index of `node_id`; the table has none of
    /// `project_id`), each with the project it names, as `WritingStore.links(of:)` compares them.
    func linkedRows(inDocumentsOf project: ProjectID) throws -> [LinkedRow] {
        try database.query("SELECT rowid, id, project_id FROM writing_branches WHERE node_id IN (\(NodeTable.idsInProject))",
                           [.blob(project.bytes)]).compactMap { try? LinkedRow($0, link: "project_id") }
    }

    /// Whether the table is there: a writing module stopped before migration `versions-2` has none
    /// (a vault made as it was before, in the migration tests; a real vault is migrated at its open).
    func isPresent() throws -> Bool {
        try database.queryOne("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'writing_branches'") != nil
    }

    /// The branch with id `id`, whatever its project_id holds, or nil.
    func linkedRow(_ id: [UInt8]) throws -> LinkedRow? {
        try database.queryOne("SELECT rowid, id, project_id FROM writing_branches WHERE id = ?", [.blob(id)])
            .flatMap { try? LinkedRow($0, link: "project_id") }
    }

    /// Puts back the project_id of the row at `rowid` (`LinkMend`).
    func setProject(ofRowid rowid: Int64, to project: [UInt8]) throws {
        try database.query("UPDATE writing_branches SET project_id = ? WHERE rowid = ?", [.blob(project), .integer(rowid)])
    }

    /// Writes a decision: the state, its time and the adoption's snapshots (kept through a revert).
    func update(_ row: Row) throws {
        try database.query("""
            UPDATE writing_branches SET state = ?, decided_at = ?, before_snapshot_id = ?, adopted_snapshot_id = ? WHERE id = ?
            """, [.text(row.state.rawValue), row.decidedAt.map { .integer($0) } ?? .null,
                  row.beforeAdoption.map { .blob($0.bytes) } ?? .null, row.adoption.map { .blob($0.bytes) } ?? .null,
                  .blob(row.id.bytes)])
    }

    func deleteAll(of document: NodeID) throws {
        try database.query("DELETE FROM writing_branches WHERE node_id = ?", [.blob(document.bytes)])
    }

    private func decode(_ row: CryptoVault.Row) throws -> Row {
        guard let kind = BranchKind(rawValue: try row.text("kind")), let state = BranchState(rawValue: try row.text("state")) else {
            throw WritingError(.damagedRecord, "a writing_branches row has an unknown kind or state")
        }
        let parts = try row.nonNegativeInteger("parts")
        guard parts >= 1 else { throw WritingError(.damagedRecord, "a writing_branches row has no parts") }
        let decided: Int64? = if case .integer(let time) = row["decided_at"] { time } else { nil }
        return Row(id: try BranchID(bytes: try row.blob("id")), project: try ProjectID(bytes: try row.blob("project_id")),
                   document: try NodeID(bytes: try row.blob("node_id")), base: try SnapshotID(bytes: try row.blob("base_snapshot_id")),
                   kind: kind, state: state, parts: parts, createdAt: try row.integer("created_at"), decidedAt: decided,
                   beforeAdoption: try Self.optionalID(row["before_snapshot_id"]), adoption: try Self.optionalID(row["adopted_snapshot_id"]))
    }

    private static func optionalID(_ value: SQLValue) throws -> SnapshotID? {
        guard case .blob(let bytes) = value else { return nil }
        return try SnapshotID(bytes: bytes)
    }
}
