import CryptoVault

/// The `writing_snapshots` table, read and written here only: each snapshot's id, project,
/// document, sequence, form, origin, number of sealed parts, device and time in clear. Its content,
/// digest and title are sealed records (`WritingRecord.snapshotPart`, `.snapshotTitle`); a `grouped`
/// snapshot has no parts of its own (its group's first member's row holds them).
struct SnapshotTable {
    let database: Database

    struct Row: Equatable {
        let id: SnapshotID
        let project: ProjectID
        let document: NodeID
        let sequence: Int
        let form: SnapshotRecord.Form
        let origin: SnapshotOrigin
        let parts: Int
        let deviceID: AuditDeviceID
        let createdAt: Int64
    }

    func insert(_ row: Row) throws {
        try database.query("""
            INSERT INTO writing_snapshots (id, project_id, node_id, sequence, form, origin, parts, device_id, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.blob(row.id.bytes), .blob(row.project.bytes), .blob(row.document.bytes), .integer(Int64(row.sequence)),
                  .text(row.form.name), .text(row.origin.rawValue), .integer(Int64(row.parts)), .blob(row.deviceID.bytes),
                  .integer(row.createdAt)])
    }

    func row(_ id: SnapshotID) throws -> Row? {
        try database.queryOne("SELECT * FROM writing_snapshots WHERE id = ?", [.blob(id.bytes)]).map(decode)
    }

    /// A document's snapshots, oldest first.
    func all(of document: NodeID) throws -> [Row] {
        try database.query("SELECT * FROM writing_snapshots WHERE node_id = ? ORDER BY sequence", [.blob(document.bytes)]).map(decode)
    }

    /// A project's snapshots, by document then sequence (what sync compares, SECURITY.md §19.3).
    func all(inProject project: ProjectID) throws -> [Row] {
        try database.query("SELECT * FROM writing_snapshots WHERE project_id = ? ORDER BY node_id, sequence", [.blob(project.bytes)]).map(decode)
    }

    /// The document's latest snapshot, or nil before its first.
    func latest(of document: NodeID) throws -> Row? {
        try database.queryOne("SELECT * FROM writing_snapshots WHERE node_id = ? ORDER BY sequence DESC LIMIT 1",
                              [.blob(document.bytes)]).map(decode)
    }

    /// The rows a restore of sequence `sequence` reads: from the last keyframe at or before it, in order.
    func chain(of document: NodeID, to sequence: Int) throws -> [Row] {
        try database.query("""
            SELECT * FROM writing_snapshots WHERE node_id = ? AND sequence <= ? AND sequence >= (
                SELECT max(sequence) FROM writing_snapshots WHERE node_id = ? AND sequence <= ? AND form = 'keyframe')
            ORDER BY sequence
            """, [.blob(document.bytes), .integer(Int64(sequence)), .blob(document.bytes), .integer(Int64(sequence))]).map(decode)
    }

    /// The sequence of the document's last keyframe, or nil (no snapshot yet).
    func lastKeyframe(of document: NodeID) throws -> Int? {
        try database.queryOne("SELECT sequence FROM writing_snapshots WHERE node_id = ? AND form = 'keyframe' ORDER BY sequence DESC LIMIT 1",
                              [.blob(document.bytes)]).map { try $0.nonNegativeInteger("sequence") }
    }

    /// The rows from the first member of the group holding snapshot `sequence` (a `grouped` one) up
    /// to the one before it, in order: from the last group start before it.
    func groupStart(of document: NodeID, before sequence: Int) throws -> [Row] {
        try database.query("""
            SELECT * FROM writing_snapshots WHERE node_id = ? AND sequence < ? AND sequence >= (
                SELECT max(sequence) FROM writing_snapshots WHERE node_id = ? AND sequence < ? AND form = 'group')
            ORDER BY sequence
            """, [.blob(document.bytes), .integer(Int64(sequence)), .blob(document.bytes), .integer(Int64(sequence))]).map(decode)
    }

    /// Sets the part count of a group's first member's row (its group was sealed again in more or fewer parts).
    func setParts(_ id: SnapshotID, _ parts: Int) throws {
        try database.query("UPDATE writing_snapshots SET parts = ? WHERE id = ?", [.integer(Int64(parts)), .blob(id.bytes)])
    }

    /// The id of the document's snapshot `sequence`, or nil.
    func id(of document: NodeID, sequence: Int) throws -> SnapshotID? {
        try database.queryOne("SELECT id FROM writing_snapshots WHERE node_id = ? AND sequence = ?",
                              [.blob(document.bytes), .integer(Int64(sequence))]).map { try SnapshotID(bytes: try $0.blob("id")) }
    }

    func deleteAll(of document: NodeID) throws {
        try database.query("DELETE FROM writing_snapshots WHERE node_id = ?", [.blob(document.bytes)])
    }

    private func decode(_ row: CryptoVault.Row) throws -> Row {
        guard let form = SnapshotRecord.Form(name: try row.text("form")), let origin = SnapshotOrigin(rawValue: try row.text("origin")) else {
            throw WritingError(.damagedRecord, "a writing_snapshots row has an unknown form or origin")
        }
        let sequence = try row.nonNegativeInteger("sequence"), parts = try row.nonNegativeInteger("parts")
        let deviceID = try? AuditDeviceID(bytes: try row.blob("device_id"))
        guard sequence >= 1, (form == .grouped) == (parts == 0), let deviceID else {
            throw WritingError(.damagedRecord, "a writing_snapshots row has a sequence, part count or device id out of range")
        }
        return Row(id: try SnapshotID(bytes: try row.blob("id")), project: try ProjectID(bytes: try row.blob("project_id")),
                   document: try NodeID(bytes: try row.blob("node_id")), sequence: sequence, form: form, origin: origin,
                   parts: parts, deviceID: deviceID, createdAt: try row.integer("created_at"))
    }
}
