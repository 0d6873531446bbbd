import CryptoVault
import Writing

/// What `vaultctl repair` did to damaged rows of the sync module's tables other than
/// `sync_records` (`VaultSync.DamagedRows`; closing note s10, "Left open").
public struct SyncRowsMend: Sendable, Equatable {
    /// Rows written again from what they can be derived from, by table: a hold's part count from
    /// the sealed parts of its base, a left-out id kept under every kind.
    public var mended: [String: Int] = [:]
    /// Rows dropped, by table: a conflict's branch link (a receive links the conflict again), a
    /// left-out row whose id is damaged, a hold whose document id is damaged or whose base does
    /// not open, a set-aside record that does not open, a left-out record of a fork that does not
    /// open, a row naming no project here.
    public var dropped: [String: Int] = [:]
    /// Projects whose damaged own-record floor was made "until one sync with an own device"
    /// (`OwnRecordFloor.untilOwnPull`): the counter it held is not known, and a lower one could let
    /// this device sign a counter it signed already. View-only until then. So is a project whose
    /// dropped set-aside row may have held one of this device's records (`VaultSync.SetAsideMend`).
    public var waiting: [ProjectID] = []
    /// Projects a dropped row of `sync_restore_waits` made wait again, since its restore, for the
    /// device it named or, when that could not be told, for every device that may hold its later
    /// records (`RestoredOwnRecords.mendDamaged`): never a wait lifted.
    public var rewaiting: [ProjectID] = []

    public var changed: Bool { !mended.isEmpty || !dropped.isEmpty || !waiting.isEmpty || !rewaiting.isEmpty }
}

extension VaultSync.DamagedRows {
    /// `vaultctl repair` without --from: each damaged row of the tables other than `sync_records`
    /// mended as `SyncRowsMend` says, in one audited transaction (`sync.rows-mended`: mended,
    /// dropped, waiting, each table=count, comma-separated, or none). A privileged project's held base opens
    /// only in a session of its compartment (actor `repair`).
    public static func mend(_ vault: UnlockedVault) throws -> SyncRowsMend {
        let (found, waitsDamaged) = try vault.transaction { tx in
            (try tables.filter { $0 != VaultSync.DamagedRecords.table && $0 != RestoreWaits.table }.flatMap { table in
                try rows(of: table, in: tx.database).map { row in (table, row.rowid, row.project.flatMap { try? WritingStore(tx).project($0) }) }
            }, !(try RestoreWaits(database: tx.database).damaged().isEmpty))
        }
        guard !found.isEmpty || waitsDamaged else { return SyncRowsMend() }
        // The owner's devices now, for a restore's wait whose device a damaged row no longer names.
        let own = try vault.vault.familyPairings().map(\.peer.deviceID).filter { try vault.vault.trust(of: $0) == .mine }
        // Of the rows mended, only a held base and a left-out record are opened.
        let sessions = try RepairSessions(for: found.filter { $0.0 == HeldBases.table || $0.0 == VaultSync.forkLeftOutTable }.compactMap(\.2),
                                          in: vault, purpose: "mend damaged sync state")
        defer { sessions.end() }
        let keys = try vault.deviceKeys()
        let author = SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey)
        return try vault.transaction { tx in
            var mend = SyncRowsMend()
            for (table, rowid, project) in found {
                let sync = VaultSync(WritingStore(tx, access: sessions.access(for: project)), author: author, devices: [:])
                guard let project else {
                    try drop(rowid, of: table, in: tx.database)
                    mend.dropped[table, default: 0] += 1
                    continue
                }
                switch table {
                case OwnRecordFloor.table:
                    try drop(rowid, of: table, in: tx.database)
                    try sync.awaitOwnRecords(of: project.id, upTo: OwnRecordFloor.untilOwnPull, at: sync.store.clock.now())
                    mend.waiting.append(project.id)
                case HeldBases.table:
                    if try HeldBases(sync: sync).mend(rowid, of: project) { mend.mended[table, default: 0] += 1 } else {
                        try drop(rowid, of: table, in: tx.database)
                        mend.dropped[table, default: 0] += 1
                    }
                case VaultSync.setAsideTable:
                    let origin = try? SyncExchangeStore(database: tx.database).origin(of: project.id)?.device
                    switch try sync.mendSetAside(rowid, of: project, origin: origin) {
                    case .mended: mend.mended[table, default: 0] += 1
                    case .dropped(let waits):
                        mend.dropped[table, default: 0] += 1
                        guard waits, !mend.waiting.contains(project.id) else { break }
                        try sync.awaitOwnRecords(of: project.id, upTo: OwnRecordFloor.untilOwnPull, at: sync.store.clock.now())
                        mend.waiting.append(project.id)
                    }
                case VaultSync.forkLeftOutTable:
                    if try sync.mendForkLeftOut(rowid, of: project) { mend.mended[table, default: 0] += 1 } else { mend.dropped[table, default: 0] += 1 }
                case LeftOutIDs.table:
                    if try LeftOutIDs(database: tx.database, project: project.id).mend(rowid) { mend.mended[table, default: 0] += 1 } else {
                        try drop(rowid, of: table, in: tx.database)
                        mend.dropped[table, default: 0] += 1
                    }
                default:
                    // A conflict's link to its branch: the next receive that holds the conflict links it again.
                    try drop(rowid, of: table, in: tx.database)
                    mend.dropped[table, default: 0] += 1
                }
            }
            let waits = try RestoredOwnRecords.mendDamaged(own: own, in: tx, at: WritingStore(tx).clock.now())
            if waits.mended > 0 { mend.mended[RestoreWaits.table] = waits.mended }
            if waits.dropped > 0 { mend.dropped[RestoreWaits.table] = waits.dropped }
            mend.rewaiting = waits.rewaiting
            let list = { (counts: [String: Int]) in counts.isEmpty ? "none" : counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") }
            try tx.record(.syncRowsMended, details: [.init("mended", list(mend.mended)), .init("dropped", list(mend.dropped)),
                                                     .init("waiting", list([OwnRecordFloor.table: mend.waiting.count, RestoreWaits.table: mend.rewaiting.count]
                                                        .filter { $0.value > 0 }))])
            return mend
        }
    }

    /// Deletes one row of `table` by its rowid.
    private static func drop(_ rowid: Int64, of table: String, in database: Database) throws {
        try database.query("DELETE FROM \"\(table)\" WHERE rowid = ?", [.integer(rowid)])
    }
}
