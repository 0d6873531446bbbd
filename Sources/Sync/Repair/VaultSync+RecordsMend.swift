import CryptoVault
import Writing

/// What `vaultctl repair` did to the damaged rows of `sync_records` (`VaultSync.DamagedRecords`; review
/// 17 s9, N-s9-6).
public struct SyncRecordsMend: Sendable, Equatable {
    /// Rows whose clear columns were written again from the sealed record each names, by project.
    public var mended: [ProjectID: Int] = [:]
    /// Rows dropped, with their sealed parts, because the record each names could not be read back
    /// as the record its hash names: by project (a sync with an own device, or `repair --from`,
    /// brings it again).
    public var dropped: [ProjectID: Int] = [:]
    /// Rows that name no project here and whose record does not say whose they are (review 17 s11,
    /// N-s11-5; `UnownedRecords`): kept, since dropping one would let its counter be signed again;
    /// every project stays local-only until `vaultctl repair --from DEVICE` rebuilds the store.
    public var unowned = 0

    public var changed: Bool { !mended.isEmpty || !dropped.isEmpty }
}

extension VaultSync.DamagedRecords {
    /// `vaultctl repair` without --from: each damaged row written again from the sealed record it
    /// names (its clear columns are that record's device, counter, lamport and part count, so they
    /// come back exactly), or dropped when that record does not open as the one its hash names; a
    /// row naming no project here, or another project than its record's, written again as a record
    /// of the project whose compartment keeps that record, or kept when none does (`unowned`); in
    /// one audited transaction (`sync.records-mended`: mended, dropped, projects). A privileged
    /// project's records open only in a session of its compartment (actor `repair`), as every read
    /// of them does.
    public static func mend(_ vault: UnlockedVault) throws -> SyncRecordsMend {
        let (damaged, unowned, stored) = try vault.transaction { tx in
            let store = WritingStore(tx)
            // A row that names no project here is its sealed record's project's (N-s11-5): the id
            // is written again from the record, never dropped (its counter would be signed again).
            let strays = try VaultSync.UnownedRecords.rows(in: store)
            let projects = try store.projects()
            let owners = strays.map { stray in (stray.rowid, VaultSync.UnownedRecords.owner(of: stray.hash, among: projects, in: tx)) }
            let straying = Set(strays.map(\.rowid))
            return (try rows(in: tx.database).filter { !straying.contains($0.rowid) }.compactMap { row in
                        row.project.flatMap { try? store.project($0) }.map { (row.rowid, $0) } },
                    owners.map { rowid, owner in (rowid, projects.first { .project($0.id) == owner }) },
                    try VaultSync.projectsWithRecords(in: tx.database).compactMap { try? store.project($0) })
        }
        guard !damaged.isEmpty || !unowned.isEmpty || !stored.isEmpty else { return SyncRecordsMend() }
        let sessions = try RepairSessions(for: damaged.map(\.1) + unowned.compactMap(\.1) + stored, in: vault, purpose: "mend damaged sync records")
        defer { sessions.end() }
        let keys = try vault.deviceKeys()
        let author = SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey)
        return try vault.transaction { tx in
            var mend = SyncRecordsMend()
            let sync = { (project: WritingProject) in
                VaultSync(WritingStore(tx, access: sessions.access(for: project)), author: author, devices: [:])
            }
            // Rows whose columns a writer could store but that are not the record's (N-s10-7): found by
            // opening each record, as a replica made of them would.
            var found = damaged
            var strays = unowned
            for project in stored {
                let (unlike, elsewhere) = try unlike(project, with: sync(project))
                found += unlike.map { ($0, project) }
                // A row naming this project whose sealed record another project keeps: that one's (N-s11-5).
                guard !elsewhere.isEmpty else { continue }
                let projects = try WritingStore(tx).projects()
                for (rowid, hash) in elsewhere {
                    let owner = VaultSync.UnownedRecords.owner(of: hash, among: projects, in: tx)
                    if let other = projects.first(where: { .project($0.id) == owner && $0.id != project.id }) { strays.append((rowid, other)) }
                }
            }
            for (rowid, owner) in strays {
                // A privileged owner met only here (no session started for it) is not mended this time.
                if let owner, !owner.isPrivileged || sessions.isOpen(for: owner), try restore(rowid, of: owner, with: sync(owner)) {
                    mend.mended[owner.id, default: 0] += 1
                } else {
                    mend.unowned += 1
                }
            }
            for (rowid, project) in found {
                if try restore(rowid, of: project, with: sync(project)) {
                    mend.mended[project.id, default: 0] += 1
                } else {
                    try drop(rowid, of: project, in: tx)
                    mend.dropped[project.id, default: 0] += 1
                }
            }
            guard mend.changed else { return mend }
            let projects = Set(mend.mended.keys).union(mend.dropped.keys)
            try tx.record(.syncRecordsMended, details: [.init("mended", String(mend.mended.values.reduce(0, +))),
                                                        .init("dropped", String(mend.dropped.values.reduce(0, +))),
                                                        .init("projects", String(projects.count))])
            return mend
        }
    }

    /// The rows of `project`'s stored records whose clear columns a writer could store but that are
    /// not those of the record each names (review 17 s10, N-s10-7); a row that no writer stores is
    /// `rows(in:)`'s. And, apart, the rowid and hash of each row whose record does not open in the
    /// project's compartment (`elsewhere`): another project's, when one keeps it (its project id
    /// made this project's, N-s11-5); else the replica says it does not open.
    static func unlike(_ project: WritingProject, with sync: VaultSync) throws -> (unlike: [Int64], elsewhere: [(Int64, [UInt8])]) {
        var found: [Int64] = []
        var elsewhere: [(Int64, [UInt8])] = []
        for row in try sync.database.query("SELECT rowid, hash, device_id, counter, lamport, parts FROM sync_records WHERE project_id = ? AND (\(wholeRow)) ORDER BY rowid",
                                           [.blob(project.id.bytes)]) {
            let hash = try row.blob("hash")
            guard let bytes = try? sync.storedRecord(hash, parts: try row.integer("parts"), of: project) else {
                elsewhere.append((try row.integer("rowid"), hash))
                continue
            }
            guard let record = try? ChangeRecordCodec.parse(bytes) else { continue }
            let stored = VaultSync.StoredRecord(hash: hash, device: try DeviceID(bytes: try row.blob("device_id")), counter: UInt64(try row.integer("counter")),
                                                lamport: UInt64(try row.integer("lamport")), bytes: bytes)
            if (try? VaultSync.checkColumns(stored, against: record, of: project.id)) == nil { found.append(try row.integer("rowid")) }
        }
        return (found, elsewhere)
    }

    /// Writes the row's clear columns again from the sealed record it names, as a record of
    /// `project` (the project the signed record names: `storedRecord` checks it); false when that does
    /// not open in the project's compartment, or is not the record its hash names, or another row
    /// holds its place already (the same device and counter: a second history, never taken).
    static func restore(_ rowid: Int64, of project: WritingProject, with sync: VaultSync) throws -> Bool {
        guard let record = try storedRecord(rowid, of: project, with: sync) else { return false }
        do {
            try sync.database.query("""
                UPDATE sync_records SET project_id = ?, device_id = ?, counter = ?, lamport = ?, parts = ?,
                    stored_at = CASE WHEN typeof(stored_at) = 'integer' THEN stored_at ELSE ? END
                WHERE rowid = ?
                """, [.blob(project.id.bytes), .blob(record.record.device.bytes), .integer(Int64(record.record.counter)),
                      .integer(Int64(record.record.lamport)), .integer(record.parts), .integer(sync.store.clock.now()), .integer(rowid)])
        } catch is CryptoVaultError {
            return false
        }
        return true
    }

    /// The record the row names, opened with the part count its column says, or, when that count is
    /// damaged, with each count a record may have until one opens as the record its hash names.
    private static func storedRecord(_ rowid: Int64, of project: WritingProject, with sync: VaultSync) throws -> (record: ChangeRecord, parts: Int64)? {
        guard let row = try sync.database.queryOne("SELECT hash, parts FROM sync_records WHERE rowid = ?", [.integer(rowid)]),
              let hash = try? row.blob("hash"), hash.count == 32 else { return nil }
        return try openedRecord(hash, parts: try? row.integer("parts"), of: project, with: sync)
    }

    /// The record `hash` names, opened with the part count `given`, or, when that count is damaged
    /// (or not known), with each count a record may have until one opens as the record its hash
    /// names (a set-aside row's too, `VaultSync.mendSetAside`).
    static func openedRecord(_ hash: [UInt8], parts given: Int64?, of project: WritingProject, with sync: VaultSync) throws -> (record: ChangeRecord, parts: Int64)? {
        let counts = given.map { (1...Int64(mostParts)).contains($0) } == true ? [given ?? 1] : Array(1...Int64(mostParts))
        for parts in counts {
            let bytes: [UInt8]
            do { bytes = try sync.storedRecord(hash, parts: parts, of: project) } catch let error as WritingError where error.code == .privilegedSessionRequired {
                throw error
            } catch { continue }
            guard let record = try? ChangeRecordCodec.parse(bytes), record.hash == hash, record.project == project.id else { continue }
            return (record, parts)
        }
        return nil
    }

    /// Deletes the row and every sealed part its hash names (a sync that brings the record again
    /// seals them anew).
    private static func drop(_ rowid: Int64, of project: WritingProject, in tx: VaultTransaction) throws {
        if let hash = try? tx.database.queryOne("SELECT hash FROM sync_records WHERE rowid = ?", [.integer(rowid)])?.blob("hash"), hash.count == 32 {
            for part in 0..<mostParts { try? tx.removeRecord(at: try VaultSync.location(hash, part: part), in: project.compartment) }
        }
        try tx.database.query("DELETE FROM sync_records WHERE rowid = ?", [.integer(rowid)])
    }
}
