import CryptoVault
import Writing

/// The records SECURITY.md §19.4's fork rule left out of a project's replica, kept by the vault
/// (`sync_fork_left_out`, migration `fork-rule-1`; reviewer 13's fk3): each sealed as a stored record
/// is (its parts at the same places), with the device that forked. A replica made again in another
/// process (each `vaultctl sync now`, each start of the daemon) takes them back without a walk
/// (`SyncReplica.recallLeftOut`), so it knows every copy of a number the walk weighed: a device
/// outside the own set that signs one number a third time then chooses nothing more, whatever ran
/// between its copies. Before, the vault deleted them, a cold replica knew only the held copy, and
/// each new copy was weighed as the second (one more sync-conflict branch per copy). Copies refused
/// unread are not kept (`SyncReplica.unweighed`): they cost a check, never storage.
extension VaultSync {
    /// The left-out records of `project` the vault keeps, each with the device that forked. A row
    /// that does not open or parse is passed over: it only bounds what a forker may choose, and
    /// forgetting one is what a vault did before it kept them.
    func leftOutRecords(of project: WritingProject) throws -> [(record: ChangeRecord, device: DeviceID)] {
        let rows = try database.query("SELECT hash, parts, forked_by FROM sync_fork_left_out WHERE project_id = ? ORDER BY hash",
                                      [.blob(project.id.bytes)])
        return rows.compactMap { row in
            guard let hash = try? row.blob("hash"), let parts = try? row.integer("parts"),
                  let device = try? DeviceID(bytes: try row.blob("forked_by")),
                  let bytes = try? storedRecord(hash, parts: parts, of: project),
                  let record = try? ChangeRecordCodec.parse(bytes), record.hash == hash else { return nil }
            return (record, device)
        }
    }

    /// The kept left-out records of `project` each device in `numbers` signed at its number there (the
    /// copies of a fork met that left here), as stored, in device then hash order: an exchange that
    /// met a fork sends them too, so that a peer whose copy stays meets the fork and names it
    /// (SECURITY.md §19.4). One that does not open is passed over.
    public func leftOutCopies(of project: WritingProject, at numbers: [DeviceID: UInt64]) throws -> [[UInt8]] {
        var copies: [[UInt8]] = []
        for (device, counter) in numbers.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
            let rows = try database.query("""
                SELECT hash, parts FROM sync_fork_left_out WHERE project_id = ? AND device_id = ? AND counter = ? ORDER BY hash
                """, [.blob(project.id.bytes), .blob(device.bytes), .integer(Int64(counter))])
            for row in rows {
                if let bytes = try? storedRecord(try row.blob("hash"), parts: try row.integer("parts"), of: project) { copies.append(bytes) }
            }
        }
        return copies
    }

    /// Makes the kept left-out records of `project` those the replica leaves out now (`keep`,
    /// `SyncReplica.leftOutToKeep`): a row no longer among them goes (with its sealed parts, unless
    /// the record is held now: taken back by a later walk, `held`), and each new one is sealed and
    /// noted. Called after the drop's rows left `sync_records` and before the records taken are stored.
    func keepLeftOut(_ keep: [(record: ChangeRecord, device: DeviceID)], held: Set<[UInt8]>, of project: WritingProject) throws {
        let kept = Set(try database.query("SELECT hash FROM sync_fork_left_out WHERE project_id = ?", [.blob(project.id.bytes)])
            .map { try $0.blob("hash") })
        let wanted = Set(keep.map(\.record.hash))
        for hash in kept.subtracting(wanted).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            if !held.contains(hash), let row = try database.queryOne("SELECT parts FROM sync_fork_left_out WHERE hash = ?", [.blob(hash)]) {
                for part in 0..<(try Self.storedParts(try row.integer("parts"), of: project.id)) {
                    try? transaction.removeRecord(at: try Self.location(hash, part: part), in: project.compartment)
                }
            }
            try database.query("DELETE FROM sync_fork_left_out WHERE hash = ?", [.blob(hash)])
        }
        for (record, device) in keep where !kept.contains(record.hash) {
            let parts = try sealParts(of: record, in: project)
            try database.query("""
                INSERT INTO sync_fork_left_out (hash, project_id, device_id, counter, parts, forked_by, left_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [.blob(record.hash), .blob(project.id.bytes), .blob(record.device.bytes), .integer(Int64(record.counter)),
                      .integer(Int64(parts)), .blob(device.bytes), .integer(store.clock.now())])
        }
    }
}
