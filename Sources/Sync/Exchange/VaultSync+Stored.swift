import CryptoVault
import Writing

/// What the exchange reads of a project's stored records without rebuilding its replica
/// (SECURITY.md §19.9): each record was verified when it was stored, and a device's records are
/// stored as one chain, parents first, so the clear columns say what is held and which rows a
/// peer lacks. The peer verifies every record it takes again.
extension VaultSync {
    /// The project's version vector: the highest counter stored per device.
    func heldVector(of project: ProjectID) throws -> [DeviceID: UInt64] {
        var vector: [DeviceID: UInt64] = [:]
        for row in try database.query("SELECT device_id, MAX(counter) AS held FROM sync_records WHERE project_id = ? GROUP BY device_id",
                                      [.blob(project.bytes)]) {
            vector[try DeviceID(bytes: try row.blob("device_id"))] = UInt64(try row.integer("held"))
        }
        return vector
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
            guard UInt64(try row.integer("counter")) > held[device] ?? 0 else { continue }
            let hash = try row.blob("hash")
            let locations = try (0..<Int(try row.integer("parts"))).map { try Self.location(hash, part: $0) }
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
    /// This vault's version vector of every project it holds records of, from the clear columns of
    /// the stored records (no record is opened): for `sync status`'s pending counts.
    static func heldVectors(in database: Database) throws -> [ProjectID: [DeviceID: UInt64]] {
        var vectors: [ProjectID: [DeviceID: UInt64]] = [:]
        for row in try database.query("SELECT project_id, device_id, MAX(counter) AS held FROM sync_records GROUP BY project_id, device_id") {
            vectors[try ProjectID(bytes: try row.blob("project_id")), default: [:]][try DeviceID(bytes: try row.blob("device_id"))] =
                UInt64(try row.integer("held"))
        }
        return vectors
    }
}
