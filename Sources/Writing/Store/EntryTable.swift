import CryptoVault

/// The `writing_entries` table, read and written here only: each character, place, plot beat and
/// snippet's id, project, kind and order in clear. Its content is a sealed record (`WritingRecord.entry`).
struct EntryTable {
    let database: Database

    struct Row {
        let id: EntryID
        let kind: EntryKind
        let orderKey: String
    }

    func insert(_ row: Row, in project: ProjectID, at time: Int64) throws {
        try database.query("INSERT INTO writing_entries (id, project_id, kind, order_key, created_at) VALUES (?, ?, ?, ?, ?)",
                           [.blob(row.id.bytes), .blob(project.bytes), .text(row.kind.rawValue), .text(row.orderKey), .integer(time)])
    }

    /// The project's entries of `kind` (every kind when nil), by kind then order.
    func all(in project: ProjectID, kind: EntryKind?) throws -> [Row] {
        let rows = if let kind {
            try database.query("SELECT id, kind, order_key FROM writing_entries WHERE project_id = ? AND kind = ? ORDER BY order_key",
                               [.blob(project.bytes), .text(kind.rawValue)])
        } else {
            try database.query("SELECT id, kind, order_key FROM writing_entries WHERE project_id = ? ORDER BY kind, order_key",
                               [.blob(project.bytes)])
        }
        return try rows.map { row in
            guard let kind = EntryKind(rawValue: try row.text("kind")), OrderKey.isValid(try row.text("order_key")) else {
                throw WritingError(.damagedRecord, "a writing_entries row has an unknown kind or a malformed order key")
            }
            return Row(id: try EntryID(bytes: try row.blob("id")), kind: kind, orderKey: try row.text("order_key"))
        }
    }

    /// `project`'s entries as `WritingStore.links(of:)` compares them with its records.
    func linkedRows(in project: ProjectID) throws -> [LinkedRow] {
        try database.query("SELECT rowid, id, project_id FROM writing_entries WHERE project_id = ?", [.blob(project.bytes)])
            .compactMap { try? LinkedRow($0, link: "project_id") }
    }

    /// The entry with id `id`, whatever its project_id holds, or nil.
    func linkedRow(_ id: [UInt8]) throws -> LinkedRow? {
        try database.queryOne("SELECT rowid, id, project_id FROM writing_entries WHERE id = ?", [.blob(id)])
            .flatMap { try? LinkedRow($0, link: "project_id") }
    }

    /// Puts back the project_id of the row at `rowid` (`LinkMend`).
    func setProject(ofRowid rowid: Int64, to project: [UInt8]) throws {
        try database.query("UPDATE writing_entries SET project_id = ? WHERE rowid = ?", [.blob(project), .integer(rowid)])
    }

    func project(of id: EntryID) throws -> ProjectID? {
        try database.queryOne("SELECT project_id FROM writing_entries WHERE id = ?", [.blob(id.bytes)])
            .map { try ProjectID(bytes: try $0.blob("project_id")) }
    }

    func delete(_ id: EntryID) throws {
        try database.query("DELETE FROM writing_entries WHERE id = ?", [.blob(id.bytes)])
    }
}
