import CryptoVault
import Writing

/// How far this device's own records of a project went, when a repair rebuilt the project from an
/// own device that lacks some of them (`sync_own_floors`, SECURITY.md §19.10; review 17 s8, F14):
/// the highest counter of this device that this vault's audit log recorded for the project. Until
/// the project's records of this device reach it again, this device commits nothing there: a record
/// always takes the next counter after those in its past, so its next record would carry a counter
/// it already signed with other content, and an own device holding the first would see a fork and
/// refuse every later record of this device in the project, for good. The project is view-only here
/// meanwhile (no edit waits uncommitted to be overwritten), and the row goes when a receive brings the
/// records back (`SyncEndpoint`).
struct OwnRecordFloor {
    let database: Database

    static let table = "sync_own_floors"

    /// The floor of a project in a restored or recovered vault (SECURITY.md §19.10; review 17 s10,
    /// N-s10-4): the backup rewound this device's records and its audit log alike, so how far its
    /// records went is not known here. No counter reaches this one: the project waits for a
    /// completed pull from each device that may hold them (`RestoreWaits`), which brings back
    /// whatever records of this device that device holds (`restoredPullCompleted`).
    static let untilOwnPull = UInt64(Int64.max)

    /// The counter this device's records of `project` must reach before it commits there, or nil.
    /// A stored counter below zero (a damaged row: no writer stores one) leaves the project
    /// local-only with the reason, never a trap.
    func floor(of project: ProjectID) throws -> UInt64? {
        guard let row = try database.queryOne("SELECT counter FROM sync_own_floors WHERE project_id = ?", [.blob(project.bytes)]) else {
            return nil
        }
        guard let counter = UInt64(exactly: try row.integer("counter")) else {
            throw VaultSync.damaged(project, "the counter this device's records must reach here is not a counter")
        }
        return counter
    }

    func set(_ counter: UInt64, of project: ProjectID, at time: Int64) throws {
        try database.query("INSERT OR REPLACE INTO sync_own_floors (project_id, counter, set_at) VALUES (?, ?, ?)",
                           [.blob(project.bytes), .integer(Int64(min(counter, UInt64(Int64.max)))), .integer(time)])
    }

    func clear(_ project: ProjectID) throws {
        try database.query("DELETE FROM sync_own_floors WHERE project_id = ?", [.blob(project.bytes)])
    }

    /// The projects that have a floor (whatever it holds; a row whose project id is not one left out).
    func projects() throws -> Set<ProjectID> {
        Set(try database.query("SELECT project_id FROM sync_own_floors").compactMap { try? ProjectID(bytes: try $0.blob("project_id")) })
    }
}

extension VaultSync {
    /// Whether this device's records of `project` in `replica` are still below what it signed before
    /// a repair (`OwnRecordFloor`): then nothing is committed.
    func belowOwnFloor(_ project: ProjectID, _ replica: SyncReplica) throws -> Bool {
        guard let floor = try OwnRecordFloor(database: transaction.database).floor(of: project) else { return false }
        return (replica.versionVector[author.device] ?? 0) < floor
    }

    /// This device's records of `project` are back as far as they went before the repair: the floor
    /// goes, and the project takes changes again unless `viewOnly` (the role it is held in says so).
    /// Returns whether it went.
    public func ownRecordsBack(in project: ProjectID, viewOnly: Bool, from peer: DeviceID) throws -> Bool {
        let floors = OwnRecordFloor(database: transaction.database)
        guard let floor = try floors.floor(of: project), (try heldVector(of: project)[author.device] ?? 0) >= floor else { return false }
        try floors.clear(project)
        if !viewOnly { try store.setSyncedViewOnly(project, false, from: peer.hex) }
        return true
    }

    /// A pull of `project` from `peer` completed (`mine`: a device trusted as the owner's): a
    /// restored vault's project that waited for it (`OwnRecordFloor.untilOwnPull`) now holds whatever
    /// records of this device that device held; once no device is awaited (`RestoreWaits`), it takes
    /// changes again unless `viewOnly`. Returns whether the wait ended.
    public func restoredPullCompleted(in project: ProjectID, viewOnly: Bool, from peer: DeviceID, mine: Bool) throws -> Bool {
        try RestoredOwnRecords.pullCompleted(project, from: peer, mine: mine, viewOnly: viewOnly, in: transaction)
    }

    /// After a repair that lacked this device's records of `project` up to `counter` (its audit log
    /// recorded them): the floor kept, and the project view-only until they are back.
    public func awaitOwnRecords(of project: ProjectID, upTo counter: UInt64, at time: Int64) throws {
        try OwnRecordFloor(database: transaction.database).set(counter, of: project, at: time)
        try store.setSyncedViewOnly(project, true, from: "repair")
    }
}

extension AuditAction {
    /// The owner let this device write a project again though its own records of it a repair lacked
    /// are not back (details: project, counter).
    public static let syncOwnRecordsReleased = AuditAction("sync.own-records-released")
}

/// A restored or recovered vault's projects wait for this device's own records (SECURITY.md §19.10;
/// review 17 s10, N-s10-4): the next record of this device would reuse a counter it signed after the
/// backup, and its own devices, comparing counts only, would call two texts the same ("syncs") until
/// the next edit split them for good. Every project waits, not only those holding sync records: a
/// project written but never synced before the backup holds none, yet its first records may have been
/// signed and sent after it (review 17 s11, N-s11-1).
public enum RestoredOwnRecords {
    /// Marks every project here: view-only, with the floor that only completed pulls lift, from
    /// each of `own` (the devices the backup trusted as the owner's) and each device of someone else's
    /// the project is shared with or from (`markAwaited`). In the restore's transaction; returns the
    /// projects.
    /// A vault that pairs no device as `mine` waits too: a device the owner paired after the backup
    /// is not known here, yet it may hold this device's later records; the owner pairs it again and
    /// syncs, or says none does (`repair --write-anyway`; review 17 s11, N-s11-1's remaining case).
    public static func markAwaiting(in tx: VaultTransaction, own: [DeviceID], clock: VaultClock = .system) throws -> [ProjectID] {
        let store = WritingStore(tx, access: .vault)
        let projects = try store.projects()
        for project in projects {
            try OwnRecordFloor(database: tx.database).set(OwnRecordFloor.untilOwnPull, of: project.id, at: clock.now())
            try markAwaited(project, own: own, in: tx, at: clock.now())
            try store.setSyncedViewOnly(project.id, true, from: "restore")
        }
        return projects.map(\.id)
    }

    /// Whether `counter`, as `OwnRecordsAwaited.writeAnyway` returns it, is a restored vault's wait
    /// for one sync with an own device rather than a repair's counter.
    public static func isRestoredWait(_ counter: UInt64) -> Bool { counter == OwnRecordFloor.untilOwnPull }
}

/// The owner's way out of waiting for this device's own records after a repair, when no own device
/// holds them (`vaultctl repair --write-anyway PROJECT`, SECURITY.md §19.10).
public enum OwnRecordsAwaited {
    /// Stops waiting for them: the project takes changes again (unless it is held from someone
    /// else's device as viewer), recorded as `sync.own-records-released`. This device's next record
    /// reuses a counter of the records it lacks: an own device that holds them will refuse this
    /// one's records of the project for good, so this is for when none does. Returns the counter
    /// the project awaited, or nil when it awaited nothing. `access`: how the project is read (a
    /// privileged one's in a session of its compartment).
    /// The projects that wait for this device's own records here (a repair's floor or a restore's
    /// wait), in id order; a row whose project id is not one (damaged) is left out. Reads no
    /// project, so no privileged session is needed to learn which wait (`repair --write-anyway-all`).
    public static func projects(in vault: UnlockedVault) throws -> [ProjectID] {
        try vault.transaction { tx in
            try tx.database.query("SELECT project_id FROM \(OwnRecordFloor.table) ORDER BY project_id").compactMap { row in
                try? ProjectID(bytes: try row.blob("project_id"))
            }
        }
    }

    public static func writeAnyway(_ project: ProjectID, in vault: UnlockedVault, access: RecordAccess) throws -> UInt64? {
        try vault.transaction { tx in
            let floors = OwnRecordFloor(database: tx.database)
            guard let floor = try floors.floor(of: project) else { return nil }
            try floors.clear(project)
            try RestoredOwnRecords.forget(project, in: tx)
            let store = WritingStore(tx, access: access)
            let held = try store.project(project)
            if try SyncExchangeStore(database: tx.database).origin(of: project)?.access != .viewer {
                try store.setSyncedViewOnly(project, false, from: "owner")
            }
            try tx.record(.syncOwnRecordsReleased, compartment: held.compartment.id, subject: project,
                          details: [.init("project", project.hex), .init("counter", String(floor))])
            return floor
        }
    }
}
