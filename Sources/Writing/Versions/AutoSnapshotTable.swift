import CryptoVault

/// The `writing_auto_snapshots` table, read and written here only: per project and device, the
/// document being edited and the counters of `AutoSnapshotPolicy` (SECURITY.md §15.2), so the
/// automatic snapshots follow a writer across processes (each `vaultctl doc write` is one).
struct AutoSnapshotTable {
    let database: Database

    struct Row: Equatable {
        let project: ProjectID
        let deviceID: AuditDeviceID
        var document: NodeID
        /// The sequence of the document's latest snapshot when the row was written (0: none yet), so
        /// a snapshot taken since by any path (titled, a restore, a branch decision) is seen.
        var sequence: Int
        var state: AutoSnapshotState
        /// A sync wrote words from elsewhere into `document` since this device's last write of it
        /// (`markReceived`): the document is not what that write left.
        var received = false
    }

    func row(of project: ProjectID, device deviceID: AuditDeviceID) throws -> Row? {
        try database.queryOne("SELECT * FROM writing_auto_snapshots WHERE project_id = ? AND device_id = ?",
                              [.blob(project.bytes), .blob(deviceID.bytes)]).map(decode)
    }

    /// Inserts the row or replaces the one of its project and device.
    func save(_ row: Row) throws {
        try database.query("""
            INSERT INTO writing_auto_snapshots (project_id, device_id, node_id, sequence, last_edit_ms, active_ms, characters, edits, received)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (project_id, device_id) DO UPDATE SET node_id = excluded.node_id, sequence = excluded.sequence,
                last_edit_ms = excluded.last_edit_ms, active_ms = excluded.active_ms, characters = excluded.characters, edits = excluded.edits,
                received = excluded.received
            """, [.blob(row.project.bytes), .blob(row.deviceID.bytes), .blob(row.document.bytes), .integer(Int64(row.sequence)),
                  row.state.lastEdit.map { .integer($0) } ?? .null, .integer(row.state.activeMilliseconds),
                  .integer(Int64(row.state.charactersChanged)), .integer(Int64(row.state.editsSinceSnapshot)), .integer(row.received ? 1 : 0)])
    }

    /// A sync wrote words from elsewhere into `document`: if it is the one this device's row names,
    /// the row says so until this device writes it again (its counters are left as they are).
    func markReceived(_ document: NodeID, of project: ProjectID, device deviceID: AuditDeviceID) throws {
        try database.query("UPDATE writing_auto_snapshots SET received = 1 WHERE project_id = ? AND device_id = ? AND node_id = ?",
                           [.blob(project.bytes), .blob(deviceID.bytes), .blob(document.bytes)])
    }

    /// The largest counter a row may hold (2^40), and the latest time, in Unix milliseconds (2^50: the year 37648).
    static let maximumCount = 1 << 40
    static let latestTime: Int64 = 1 << 50

    private func decode(_ row: CryptoVault.Row) throws -> Row {
        let lastEdit: Int64? = if case .integer(let time) = row["last_edit_ms"] { time } else { nil }
        let active = try row.nonNegativeInteger("active_ms"), characters = try row.nonNegativeInteger("characters"),
            edits = try row.nonNegativeInteger("edits"), sequence = try row.nonNegativeInteger("sequence"),
            received = try row.nonNegativeInteger("received")
        // A damaged or hostile counter or time is refused here, never counted on (the policy's sums would trap).
        guard [active, characters, edits, sequence].allSatisfy({ $0 <= Self.maximumCount }),
              (0...Self.latestTime).contains(lastEdit ?? 0), received <= 1 else {
            throw WritingError(.damagedRecord, "a writing_auto_snapshots row has a counter or time out of range")
        }
        guard let deviceID = try? AuditDeviceID(bytes: try row.blob("device_id")) else {
            throw WritingError(.damagedRecord, "a writing_auto_snapshots row has a device id out of range")
        }
        return Row(project: try ProjectID(bytes: try row.blob("project_id")), deviceID: deviceID,
                   document: try NodeID(bytes: try row.blob("node_id")), sequence: sequence,
                   state: AutoSnapshotState(lastEdit: lastEdit, activeMilliseconds: Int64(active), charactersChanged: characters,
                                            editsSinceSnapshot: edits), received: received == 1)
    }
}
