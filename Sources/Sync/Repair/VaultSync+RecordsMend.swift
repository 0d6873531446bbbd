import CryptoVault
import PrivilegedSession
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
    /// Rows dropped that named no project here (their project id was damaged too, or names none).
    public var droppedUnowned = 0

    public var changed: Bool { !mended.isEmpty || !dropped.isEmpty || droppedUnowned > 0 }
}

extension VaultSync.DamagedRecords {
    /// `vaultctl repair` without --from: each damaged row written again from the sealed record it
    /// names (its clear columns are that record's device, counter, lamport and part count, so they
    /// come back exactly), or dropped when that record does not open as the one its hash names; in
    /// one audited transaction (`sync.records-mended`: mended, dropped, projects). A privileged
    /// project's records open only in a session of its compartment (actor `repair`), as every read
    /// of them does.
    public static func mend(_ vault: UnlockedVault) throws -> SyncRecordsMend {
        let (damaged, stored) = try vault.transaction { tx in
            // A row whose project this store does not hold is read by nothing: dropped.
            (try rows(in: tx.database).map { row in (row.rowid, row.project.flatMap { try? WritingStore(tx).project($0) }) },
             try VaultSync.projectsWithRecords(in: tx.database).compactMap { try? WritingStore(tx).project($0) })
        }
        guard !damaged.isEmpty || !stored.isEmpty else { return SyncRecordsMend() }
        var sessions: [CompartmentID: PrivilegedProcessingSession] = [:]
        defer { for session in sessions.values { try? session.end() } }
        for project in damaged.compactMap(\.1) + stored where project.isPrivileged && sessions[project.compartment.id] == nil {
            sessions[project.compartment.id] = try PrivilegedProcessingSession.start(vault: vault, compartment: project.compartment, actor: "repair",
                                                                                     purpose: "mend damaged sync records")
        }
        let keys = try vault.deviceKeys()
        let author = SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey)
        return try vault.transaction { tx in
            var mend = SyncRecordsMend()
            let sync = { (project: WritingProject) in
                VaultSync(WritingStore(tx, access: sessions[project.compartment.id].map { .session($0) } ?? .vault), author: author, devices: [:])
            }
            // Rows whose columns a writer could store but that are not the record's (N-s10-7): found by
            // opening each record, as a replica made of them would.
            var found = damaged
            for project in stored {
                found += try unlike(project, with: sync(project)).map { ($0, project) }
            }
            for (rowid, project) in found {
                guard let project else {
                    try tx.database.query("DELETE FROM sync_records WHERE rowid = ?", [.integer(rowid)])
                    mend.droppedUnowned += 1
                    continue
                }
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
                                                        .init("dropped", String(mend.dropped.values.reduce(0, +) + mend.droppedUnowned)),
                                                        .init("projects", String(projects.count))])
            return mend
        }
    }

    /// The rows of `project`'s stored records whose clear columns a writer could store but that are
    /// not those of the record each names (review 17 s10, N-s10-7); a row that no writer stores is
    /// `rows(in:)`'s, and one whose record does not open is not listed (the replica says so).
    static func unlike(_ project: WritingProject, with sync: VaultSync) throws -> [Int64] {
        var found: [Int64] = []
        for row in try sync.database.query("SELECT rowid, hash, device_id, counter, lamport, parts FROM sync_records WHERE project_id = ? AND (\(wholeRow)) ORDER BY rowid",
                                           [.blob(project.id.bytes)]) {
            let hash = try row.blob("hash")
            guard let bytes = try? sync.storedRecord(hash, parts: try row.integer("parts"), of: project),
                  let record = try? ChangeRecordCodec.parse(bytes) else { continue }
            let stored = VaultSync.StoredRecord(hash: hash, device: try DeviceID(bytes: try row.blob("device_id")), counter: UInt64(try row.integer("counter")),
                                                lamport: UInt64(try row.integer("lamport")), bytes: bytes)
            if (try? VaultSync.checkColumns(stored, against: record, of: project.id)) == nil { found.append(try row.integer("rowid")) }
        }
        return found
    }

    /// Writes the row's clear columns again from the sealed record it names; false when that does
    /// not open, or is not the record its hash names, or another row holds its place already (the
    /// same device and counter: a second history, never taken).
    static func restore(_ rowid: Int64, of project: WritingProject, with sync: VaultSync) throws -> Bool {
        guard let record = try storedRecord(rowid, of: project, with: sync) else { return false }
        do {
            try sync.database.query("""
                UPDATE sync_records SET device_id = ?, counter = ?, lamport = ?, parts = ?,
                    stored_at = CASE WHEN typeof(stored_at) = 'integer' THEN stored_at ELSE ? END
                WHERE rowid = ?
                """, [.blob(record.record.device.bytes), .integer(Int64(record.record.counter)), .integer(Int64(record.record.lamport)),
                      .integer(record.parts), .integer(sync.store.clock.now()), .integer(rowid)])
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
        let given = try? row.integer("parts")
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
