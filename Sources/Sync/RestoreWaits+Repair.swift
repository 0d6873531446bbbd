import CryptoVault
import Writing

/// What a restored or repaired vault's projects wait for, carried over `vaultctl repair --from
/// DEVICE`'s reset (restore15's leftover): `WritingStoreReset` drops every table of the sync module,
/// `sync_own_floors` and `sync_restore_waits` among them, and the rebuild put back only the floor the
/// audit log says. A restored vault's audit log was rewound with it, so it says none: the project
/// took changes after a repair from the desk while the tablet still held this device's records
/// signed after the backup, and the next record reused their numbers (a fork, for good). Each
/// project made again keeps its floor and the devices it waits for; the pull the repair made from
/// DEVICE counts as that device's completed pull, as an exchange's would.
struct CarriedWaits {
    /// Each project's floor (`OwnRecordFloor`): a damaged one is carried as a restore's wait, the
    /// most a floor holds, so that damage never lifts a wait.
    let floors: [ProjectID: UInt64]
    /// Each project's rows of `sync_restore_waits` that read whole (a damaged row's project is named
    /// by `vaultctl repair` before a `--from` runs; here the floor alone keeps it waiting).
    let waits: [ProjectID: [(device: [UInt8], kind: String, setAt: Int64)]]

    /// Read before the reset, in its transaction.
    static func read(in database: Database) throws -> CarriedWaits {
        let floorTable = OwnRecordFloor(database: database)
        var floors: [ProjectID: UInt64] = [:]
        for project in try floorTable.projects() {
            floors[project] = (try? floorTable.floor(of: project)) ?? OwnRecordFloor.untilOwnPull
        }
        return CarriedWaits(floors: floors, waits: try RestoreWaits(database: database).wholeRows())
    }

    /// Puts `project`'s wait back once it is made again (its records received), then counts the
    /// repair's pull from `peer` as a completed one: the wait ends only when nothing else is awaited.
    func putBack(_ project: ProjectID, sync: VaultSync, from peer: DeviceID, mine: Bool, viewOnly: Bool, at time: Int64) throws {
        guard let carried = floors[project] else { return }
        let database = sync.database
        let floor = max(carried, try OwnRecordFloor(database: database).floor(of: project) ?? 0)
        try sync.awaitOwnRecords(of: project, upTo: floor, at: time)
        let table = RestoreWaits(database: database)
        for row in waits[project] ?? [] { try table.putBack(row, of: project) }
        if RestoredOwnRecords.isRestoredWait(floor) {
            _ = try sync.restoredPullCompleted(in: project, viewOnly: viewOnly, from: peer, mine: mine)
        } else {
            _ = try sync.ownRecordsBack(in: project, viewOnly: viewOnly, from: peer)
        }
    }
}

extension RestoreWaits {
    /// Every row that reads whole, by project, as stored.
    func wholeRows() throws -> [ProjectID: [(device: [UInt8], kind: String, setAt: Int64)]] {
        var rows: [ProjectID: [(device: [UInt8], kind: String, setAt: Int64)]] = [:]
        for row in try database.query("SELECT project_id, device_id, kind, set_at FROM sync_restore_waits WHERE \(Self.wholeRow) ORDER BY rowid") {
            rows[try ProjectID(bytes: try row.blob("project_id")), default: []].append((try row.blob("device_id"), try row.text("kind"), try row.integer("set_at")))
        }
        return rows
    }

    /// A row `wholeRows` read, written again.
    func putBack(_ row: (device: [UInt8], kind: String, setAt: Int64), of project: ProjectID) throws {
        try database.query("INSERT OR IGNORE INTO sync_restore_waits (project_id, device_id, kind, set_at) VALUES (?, ?, ?, ?)",
                           [.blob(project.bytes), .blob(row.device), .text(row.kind), .integer(row.setAt)])
    }
}
