import CryptoVault
import Writing

/// What the exchange reads of a project's stored records without rebuilding its replica
/// (SECURITY.md §19.9): each record was verified when it was stored, and a device's records are
/// stored as one chain, parents first, so the clear columns say what is held and which rows a
/// peer lacks. The peer verifies every record it takes again.
extension VaultSync {
    /// The project's version vector: the highest counter stored per device. A counter column below
    /// 1 anywhere in the project is damage (`storedCounter`).
    func heldVector(of project: ProjectID) throws -> [DeviceID: UInt64] {
        try Self.heldVector(of: project, in: database)
    }

    /// `heldVector`, read from `database` alone: no step (nor session) is needed for clear columns.
    static func heldVector(of project: ProjectID, in database: Database) throws -> [DeviceID: UInt64] {
        var vector: [DeviceID: UInt64] = [:]
        for row in try database.query("SELECT device_id, MAX(counter) AS held, MIN(counter) AS least FROM sync_records WHERE project_id = ? GROUP BY device_id",
                                      [.blob(project.bytes)]) {
            _ = try Self.storedCounter(try row.integer("least"), of: project)
            vector[try DeviceID(bytes: try row.blob("device_id"))] = try Self.storedCounter(try row.integer("held"), of: project)
        }
        return vector
    }

    /// A digest of the project's stored rows' clear columns (hash, device, counter, Lamport time,
    /// parts), in the order they were stored: equal only while the same rows are stored as they were
    /// (`SyncSettledMark`).
    static func storedRowsDigest(of project: ProjectID, in database: Database) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try database.forEachRawRow("SELECT hash, device_id, counter, lamport, parts FROM sync_records WHERE project_id = ? ORDER BY rowid",
                                   [.blob(project.bytes)]) { row in
            bytes += row.blob(at: 0)
            bytes += row.blob(at: 1)
            for column: Int32 in 2...4 { withUnsafeBytes(of: row.integer(at: column).bigEndian) { bytes += $0 } }
        }
        return SHA256.hash(bytes)
    }

    /// The hash of the record stored of each device at the counter `vector` names, for those held,
    /// of the first `SyncWire.maximumTips` devices by id: a pull's `tips` (review 17 s10, N-s10-4 (c)).
    func tips(of project: ProjectID, at vector: [DeviceID: UInt64]) throws -> [DeviceID: [UInt8]] {
        var tips: [DeviceID: [UInt8]] = [:]
        let devices = vector.filter { 1...UInt64(Int64.max) ~= $0.value }.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }
        for (device, counter) in devices.prefix(SyncWire.maximumTips) {
            let row = try database.queryOne("SELECT hash FROM sync_records WHERE project_id = ? AND device_id = ? AND counter = ?",
                                            [.blob(project.bytes), .blob(device.bytes), .integer(Int64(counter))])
            if let hash = try row?.blob("hash"), hash.count == 32 { tips[device] = hash }
        }
        return tips
    }

    /// The devices whose record at the counter a peer's `tips` names is held here under another
    /// hash, with that counter: each signed two histories of the project, a fork that equal
    /// counters would hide. Only the peer's word (a hash, unsigned): it is looked for, never recorded.
    func forksSeen(of project: ProjectID, held: [DeviceID: UInt64], tips: [DeviceID: [UInt8]]) throws -> [DeviceID: UInt64] {
        var seen: [DeviceID: UInt64] = [:]
        let named = held.filter { tips[$0.key] != nil }
        for (device, hash) in try self.tips(of: project, at: named) where hash != tips[device] { seen[device] = named[device] }
        return seen
    }

    /// Whether a record with this hash is stored (of any project: a hash names one record).
    func holds(_ hash: [UInt8]) throws -> Bool {
        try database.queryOne("SELECT 1 FROM sync_records WHERE hash = ?", [.blob(hash)]) != nil
    }

    /// The stored records of `project` a peer at `held` lacks, in the order they were stored
    /// (parents first).
    func storedRecords(of project: WritingProject, missingFrom held: [DeviceID: UInt64]) throws -> [[UInt8]] {
        let rows = try database.query("SELECT hash, device_id, counter, parts FROM sync_records WHERE project_id = ? ORDER BY rowid",
                                      [.blob(project.id.bytes)])
        var records: [[UInt8]] = []
        for row in rows {
            let device = try DeviceID(bytes: try row.blob("device_id"))
            guard try Self.storedCounter(try row.integer("counter"), of: project.id) > held[device] ?? 0 else { continue }
            let hash = try row.blob("hash")
            let parts = try Self.storedParts(try row.integer("parts"), of: project.id)
            let locations = try (0..<parts).map { try Self.location(hash, part: $0) }
            var bytes: [UInt8] = []
            if project.isPrivileged {
                guard let session = store.access.session(of: project.compartment) else {
                    throw WritingError(.privilegedSessionRequired, "project \(project.id) is privileged: its change records are read only in a session")
                }
                try session.openRecords(at: locations, in: transaction) { _, plaintext in bytes += plaintext }
            } else {
                try transaction.openRecords(at: locations, in: project.compartment) { _, plaintext in bytes += plaintext }
            }
            records.append(bytes)
        }
        return records
    }
}

extension VaultSync {
    /// Every project this vault holds sync records of (`repair`'s mend checks each one's rows).
    static func projectsWithRecords(in database: Database) throws -> [ProjectID] {
        // A project id that is no id (of another type, or length) names no project: `UnownedRecords`.
        try database.query("SELECT DISTINCT project_id FROM sync_records ORDER BY project_id").compactMap { try? ProjectID(bytes: try $0.blob("project_id")) }
    }

    /// This vault's version vector of every project it holds records of, from the clear columns of
    /// the stored records (no record is opened): for `sync status`'s pending counts. A project whose
    /// stored counters are damaged is left out: it is local-only, and `SyncStatus.projects` says why.
    static func heldVectors(in database: Database) throws -> [ProjectID: [DeviceID: UInt64]] {
        var vectors: [ProjectID: [DeviceID: UInt64]] = [:]
        var damaged = Set<ProjectID>()
        for row in try database.query("SELECT project_id, device_id, MAX(counter) AS held, MIN(counter) AS least FROM sync_records GROUP BY project_id, device_id") {
            // A project id that is no id names no project: `UnownedRecords` says which project is local-only.
            guard let project = try? ProjectID(bytes: try row.blob("project_id")) else { continue }
            guard try row.integer("least") >= 1 else { damaged.insert(project); continue }
            vectors[project, default: [:]][try DeviceID(bytes: try row.blob("device_id"))] = UInt64(try row.integer("held"))
        }
        for project in damaged { vectors[project] = nil }
        return vectors
    }

    /// A stored record's counter, from its clear column: at least 1, as the table's CHECK says when
    /// a row is written. Nothing checks it when a row is read, so a flipped bit can leave any
    /// integer there (attack review s8, F18); one below 1 is damage (`.damagedSyncState`: the
    /// project works local-only with the reason), never a trap.
    static func storedCounter(_ value: Int64, of project: ProjectID) throws -> UInt64 {
        guard value >= 1 else { throw damaged(project, "a stored record's counter is \(value)") }
        return UInt64(value)
    }

    /// A stored record's number of sealed parts, from its clear column, checked as its counter is:
    /// at least 1, and no more than a record of the largest size the codec takes is cut into
    /// (a larger number would have the exchange list locations by the billion).
    static func storedParts(_ value: Int64, of project: ProjectID) throws -> Int {
        let most = (ChangeRecordCodec.maximumSize + partSize - 1) / partSize
        guard value >= 1, value <= most else { throw damaged(project, "a stored record's number of parts is \(value)") }
        return Int(value)
    }
}
