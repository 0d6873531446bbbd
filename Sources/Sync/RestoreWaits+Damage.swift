import CryptoVault
import Writing

/// A damaged row of `sync_restore_waits` (restore14's "left open"; SECURITY.md §19.5): one flipped
/// bit in any of its columns, or a value no writer stores. Such a row must never lift a wait: the
/// device it named may hold this device's later records of the project, and the next record signed
/// here would fork with it for good. Before, a kind or a device id of another type sent the whole
/// writing store to the in-memory mode; a flipped bit in a device id made a well-formed id of no
/// paired device, which stopped counting (the wait ended without that device's pull); a flipped bit
/// in a project id left the project with a row fewer (with none, any own device's pull ended it);
/// and `vaultctl repair` mended none of them.
///
/// A row is damaged when its columns are not what a writer makes (`wholeRow`), when it names as
/// `own` or `shared` a device that is not paired (a revoke deletes the revoked device's rows in its
/// own transaction, `forget(device:)`, so no writer leaves one), or when its project does not wait
/// here (no `sync_own_floors` row: the wait's end deletes both). A damaged row of a waiting project
/// is that project's damage (local-only, named: `VaultSync.DamagedRows`); one whose project id names
/// no waiting project cannot be told whose it is, so it keeps every waiting project waiting
/// (`orphans`). `vaultctl repair` mends both (`RestoredOwnRecords.mendDamaged`).
extension RestoreWaits {
    /// What a writer makes, as SQL over the columns (by `typeof`): whole ids, one of the three kinds,
    /// the all-zero device exactly for `any-own`, a time not below zero.
    static let wholeRow = """
        typeof(project_id) = 'blob' AND length(project_id) = 16 AND typeof(device_id) = 'blob' AND length(device_id) = 16
        AND typeof(kind) = 'text' AND ((kind IN ('own', 'shared') AND device_id != zeroblob(16)) OR (kind = 'any-own' AND device_id = zeroblob(16)))
        AND typeof(set_at) = 'integer' AND set_at >= 0
        """

    /// One damaged row: its rowid; the waiting project it names (nil: none that waits here); and
    /// what it awaits when that still reads as written (a kind of the three, with its paired device,
    /// or none for `any-own`), else nil.
    struct DamagedRow {
        let rowid: Int64
        let project: ProjectID?
        let device: DeviceID?
        let kind: RestoredOwnRecords.AwaitedKind?

        /// Only its time is damaged: its project waits here and what it awaits reads whole.
        var onlyTime: Bool { project != nil && kind != nil }
    }

    /// Every damaged row (of `project` alone, when given), in rowid order.
    func damaged(of project: ProjectID? = nil) throws -> [DamagedRow] {
        let waiting = try OwnRecordFloor(database: database).projects()
        let rows = try database.query("""
            SELECT rowid, project_id, device_id, kind, (\(Self.wholeRow)) AS whole,
                typeof(device_id) = 'blob' AND length(device_id) = 16 AND device_id != zeroblob(16) AS named
            FROM sync_restore_waits \(project == nil ? "" : "WHERE project_id = ?") ORDER BY rowid
            """, project.map { [SQLValue.blob($0.bytes)] } ?? [])
        var damaged: [DamagedRow] = []
        for row in rows {
            let project = (try? row.blob("project_id")).flatMap { try? ProjectID(bytes: $0) }.flatMap { waiting.contains($0) ? $0 : nil }
            let device = (try? row.integer("named")) == 1 ? (try? row.blob("device_id")).flatMap { try? DeviceID(bytes: $0) } : nil
            let paired = try device.map { try FamilyPairing.stored(deviceID: $0, in: database) != nil } ?? false
            // What it awaits, if that reads whole: a device of its own or someone else's, paired; or any own device.
            let kind: RestoredOwnRecords.AwaitedKind?
            switch (try? row.text("kind")).flatMap(RestoredOwnRecords.AwaitedKind.init(rawValue:)) {
            case .anyOwn?: kind = device == nil && (try? row.blob("device_id")) == Self.anyOwnDevice ? .anyOwn : nil
            case let named?: kind = paired ? named : nil
            case nil: kind = nil
            }
            if (try? row.integer("whole")) == 1, project != nil, kind != nil { continue }
            damaged.append(DamagedRow(rowid: try row.integer("rowid"), project: project, device: kind == .anyOwn ? nil : device, kind: kind))
        }
        return damaged
    }

    /// How many rows name no project that waits here (a damaged project id): each keeps every
    /// waiting project waiting until `vaultctl repair`.
    func orphans() throws -> Int {
        let waiting = try OwnRecordFloor(database: database).projects()
        return try database.query("SELECT project_id FROM sync_restore_waits").filter { row in
            guard let project = (try? row.blob("project_id")).flatMap({ try? ProjectID(bytes: $0) }) else { return true }
            return !waiting.contains(project)
        }.count
    }

    /// A revoked device is awaited no more: its rows go, in the revoke's transaction (so that any
    /// other row naming a device that is not paired is damage).
    func forget(device: DeviceID) throws {
        try database.query("DELETE FROM sync_restore_waits WHERE device_id = ?", [.blob(device.bytes)])
    }

    /// The paired devices whole `own` rows name, of every project: those the restore's projects wait
    /// for as the owner's (held since the restore, or confirmed), whether or not trusted `mine` now.
    func ownDevices() throws -> [DeviceID] {
        try database.query("SELECT DISTINCT device_id FROM sync_restore_waits WHERE kind = 'own' AND \(Self.wholeRow) ORDER BY device_id")
            .compactMap { try? DeviceID(bytes: try $0.blob("device_id")) }
            .filter { try FamilyPairing.stored(deviceID: $0, in: database) != nil }
    }

    /// The projects with a row naming `device`.
    func projects(awaiting device: DeviceID) throws -> [ProjectID] {
        try database.query("SELECT DISTINCT project_id FROM sync_restore_waits WHERE device_id = ? ORDER BY project_id", [.blob(device.bytes)])
            .compactMap { try? ProjectID(bytes: try $0.blob("project_id")) }
    }

    fileprivate func write(time: Int64, of rowid: Int64) throws {
        try database.query("UPDATE sync_restore_waits SET set_at = ? WHERE rowid = ?", [.integer(time), .integer(rowid)])
    }

    fileprivate func drop(_ rowid: Int64) throws {
        try database.query("DELETE FROM sync_restore_waits WHERE rowid = ?", [.integer(rowid)])
    }
}

extension RestoredOwnRecords {
    /// What `vaultctl repair` did with the damaged rows of `sync_restore_waits`.
    struct WaitsMend {
        /// Rows whose time alone was damaged, written again (now).
        var mended = 0
        /// Rows dropped: what they awaited is awaited again (`rewaiting`).
        var dropped = 0
        /// The projects a dropped row's wait was put on again.
        var rewaiting: [ProjectID] = []
    }

    /// Mends the damaged rows (`RestoreWaits.damaged`) in the repair's transaction, never lifting a
    /// wait (SECURITY.md §19.10): a row whose time alone is damaged is written again; any other is
    /// dropped, and its project (for a row naming no waiting project, every waiting project: which
    /// one it was cannot be told) waits again for what the row awaited when that still reads whole,
    /// else for every device that may hold its later records, as the restore marked it
    /// (`markAwaited`): each device `own` rows name or trusted `mine` now (`own`), and, unless the
    /// project is privileged, the devices it is shared with or from; any own device when there is
    /// none. A device among them that was pulled already is awaited again: one pull more is the
    /// safe side of not knowing which device the row named.
    static func mendDamaged(own: [DeviceID], in tx: VaultTransaction, at time: Int64) throws -> WaitsMend {
        let waits = RestoreWaits(database: tx.database)
        let damaged = try waits.damaged()
        guard !damaged.isEmpty else { return WaitsMend() }
        let own = Array(Set(own + (try waits.ownDevices()))).sorted { $0.hex < $1.hex }
        let waiting = try OwnRecordFloor(database: tx.database).projects().sorted { $0.hex < $1.hex }
        let store = WritingStore(tx, access: .vault)
        var mend = WaitsMend()
        for row in damaged {
            if row.onlyTime {
                try waits.write(time: time, of: row.rowid)
                mend.mended += 1
                continue
            }
            try waits.drop(row.rowid)
            mend.dropped += 1
            for project in row.project.map({ [$0] }) ?? waiting {
                if let kind = row.kind {
                    try waits.add(row.device, kind: kind, of: project, at: time)
                } else {
                    guard let held = try? store.project(project) else { continue }
                    try markAwaited(held, own: own, in: tx, at: time)
                }
                if !mend.rewaiting.contains(project) { mend.rewaiting.append(project) }
            }
        }
        return mend
    }

    /// `device` was revoked: no project waits for it any more (`RestoreWaits.forget(device:)`), and a
    /// project that waited for it alone takes changes again (what `settle` did while the row stayed).
    public static func forget(device: DeviceID, in tx: VaultTransaction) throws {
        let waits = RestoreWaits(database: tx.database)
        let affected = try waits.projects(awaiting: device)
        try waits.forget(device: device)
        guard try waits.orphans() == 0 else { return }
        for project in affected where try waits.rows(of: project).isEmpty
            && OwnRecordFloor(database: tx.database).floor(of: project) == OwnRecordFloor.untilOwnPull {
            try end(project, viewOnly: try SyncExchangeStore(database: tx.database).origin(of: project)?.access == .viewer, from: "owner", in: tx)
        }
    }
}
