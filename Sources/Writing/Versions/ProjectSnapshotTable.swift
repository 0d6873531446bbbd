import CryptoVault

/// The `writing_project_snapshots` table, read and written here only: each project snapshot's id,
/// project, sequence, origin, number of sealed parts, device and time in clear. Its binder and the
/// document versions it names, and a title, are sealed records (`WritingRecord.projectSnapshotPart`,
/// `.projectSnapshotTitle`).
struct ProjectSnapshotTable {
    let database: Database

    struct Row: Equatable {
        let id: ProjectSnapshotID
        let project: ProjectID
        let sequence: Int
        let origin: ProjectSnapshotOrigin
        let parts: Int
        let deviceID: AuditDeviceID
        let createdAt: Int64
    }

    func insert(_ row: Row) throws {
        try database.query("""
            INSERT INTO writing_project_snapshots (id, project_id, sequence, origin, parts, device_id, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.blob(row.id.bytes), .blob(row.project.bytes), .integer(Int64(row.sequence)), .text(row.origin.rawValue),
                  .integer(Int64(row.parts)), .blob(row.deviceID.bytes), .integer(row.createdAt)])
    }

    func row(_ id: ProjectSnapshotID) throws -> Row? {
        try database.queryOne("SELECT * FROM writing_project_snapshots WHERE id = ?", [.blob(id.bytes)]).map(decode)
    }

    /// The project's snapshots, oldest first.
    func all(of project: ProjectID) throws -> [Row] {
        try database.query("SELECT * FROM writing_project_snapshots WHERE project_id = ? ORDER BY sequence",
                           [.blob(project.bytes)]).map(decode)
    }

    func latest(of project: ProjectID) throws -> Row? {
        try database.queryOne("SELECT * FROM writing_project_snapshots WHERE project_id = ? ORDER BY sequence DESC LIMIT 1",
                              [.blob(project.bytes)]).map(decode)
    }

    private func decode(_ row: CryptoVault.Row) throws -> Row {
        guard let origin = ProjectSnapshotOrigin(rawValue: try row.text("origin")) else {
            throw WritingError(.damagedRecord, "a writing_project_snapshots row has an unknown origin")
        }
        let sequence = try row.nonNegativeInteger("sequence"), parts = try row.nonNegativeInteger("parts")
        let deviceID = try? AuditDeviceID(bytes: try row.blob("device_id"))
        guard sequence >= 1, parts >= 1, let deviceID else {
            throw WritingError(.damagedRecord, "a writing_project_snapshots row has a sequence, part count or device id out of range")
        }
        return Row(id: try ProjectSnapshotID(bytes: try row.blob("id")), project: try ProjectID(bytes: try row.blob("project_id")),
                   sequence: sequence, origin: origin, parts: parts, deviceID: deviceID, createdAt: try row.integer("created_at"))
    }
}
