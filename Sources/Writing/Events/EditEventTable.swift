import CryptoVault

/// The `writing_edit_events` table, read and written here only: each writing session's id,
/// project, device, times and number of edits, in clear. Which documents it edited and their word
/// changes are a sealed record (`WritingRecord.editEvent`, `EditEventRecord`).
struct EditEventTable {
    let database: Database

    /// The id in the row at `rowid`, whatever it holds (a damaged row's, `WritingRowMend`).
    func id(atRowid rowid: Int64) throws -> [UInt8]? {
        try database.queryOne("SELECT id FROM writing_edit_events WHERE rowid = ?", [.integer(rowid)])?.blob("id")
    }

    struct Row: Equatable {
        let id: EditEventID
        let project: ProjectID
        let deviceID: AuditDeviceID
        let startedAt: Int64
        var lastEditAt: Int64
        var endedAt: Int64?
        var edits: Int
    }

    func insert(_ row: Row) throws {
        try database.query("""
            INSERT INTO writing_edit_events (id, project_id, device_id, started_at, last_edit_at, ended_at, edits)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.blob(row.id.bytes), .blob(row.project.bytes), .blob(row.deviceID.bytes), .integer(row.startedAt),
                  .integer(row.lastEditAt), row.endedAt.map { .integer($0) } ?? .null, .integer(Int64(row.edits))])
    }

    /// Writes what an edit or an end changes: the last edit, the end and the count.
    func update(_ row: Row) throws {
        try database.query("UPDATE writing_edit_events SET last_edit_at = ?, ended_at = ?, edits = ? WHERE id = ?",
                           [.integer(row.lastEditAt), row.endedAt.map { .integer($0) } ?? .null, .integer(Int64(row.edits)),
                            .blob(row.id.bytes)])
    }

    /// The device's sessions of the project that have not ended (one, unless the table was damaged), latest first.
    func unended(in project: ProjectID, device deviceID: AuditDeviceID) throws -> [Row] {
        try database.query("""
            SELECT * FROM writing_edit_events WHERE project_id = ? AND device_id = ? AND ended_at IS NULL
            ORDER BY last_edit_at DESC, rowid DESC
            """, [.blob(project.bytes), .blob(deviceID.bytes)]).map(decode)
    }

    /// The device's sessions of every project that have not ended, oldest first.
    func unended(device deviceID: AuditDeviceID) throws -> [Row] {
        try database.query("SELECT * FROM writing_edit_events WHERE device_id = ? AND ended_at IS NULL ORDER BY started_at, rowid",
                           [.blob(deviceID.bytes)]).map(decode)
    }

    /// One event's row, or nil (a synced event is stored or updated by its id, SECURITY.md §19.5).
    func row(_ id: EditEventID) throws -> Row? {
        try database.queryOne("SELECT * FROM writing_edit_events WHERE id = ?", [.blob(id.bytes)]).map(decode)
    }

    /// The project's events of every device, oldest first.
    func all(in project: ProjectID) throws -> [Row] {
        try database.query("SELECT * FROM writing_edit_events WHERE project_id = ? ORDER BY started_at, rowid",
                           [.blob(project.bytes)]).map(decode)
    }

    /// The latest time a row may hold, in Unix seconds (2^40: the year 36812), and the most edits.
    static let latestTime: Int64 = 1 << 40
    static let maximumCount = 1 << 40

    private func decode(_ row: CryptoVault.Row) throws -> Row {
        let deviceID = try? AuditDeviceID(bytes: try row.blob("device_id")), edits = try row.nonNegativeInteger("edits")
        let ended: Int64? = if case .integer(let time) = row["ended_at"] { time } else { nil }
        guard let deviceID, (1...Self.maximumCount).contains(edits) else {
            throw WritingError(.damagedRecord, "a writing_edit_events row has a device id or edit count out of range")
        }
        let started = try row.integer("started_at"), lastEdit = try row.integer("last_edit_at")
        // A damaged or hostile time is refused here, so the session rule's and the stamps' arithmetic never traps.
        guard [started, lastEdit, ended ?? 0].allSatisfy({ (0...Self.latestTime).contains($0) }) else {
            throw WritingError(.damagedRecord, "a writing_edit_events row has a time out of range (0 to \(Self.latestTime) seconds)")
        }
        return Row(id: try EditEventID(bytes: try row.blob("id")), project: try ProjectID(bytes: try row.blob("project_id")),
                   deviceID: deviceID, startedAt: started, lastEditAt: lastEdit, endedAt: ended, edits: edits)
    }
}
