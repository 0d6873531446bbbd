import CryptoVault
import Writing

/// A damaged row of `sync_fork_left_out` (fork14's "left open"; SECURITY.md §19.4, §19.5): a record
/// the fork rule left out of its project's replica, whose clear columns no writer stores (a counter a
/// flipped sign bit made -3, a value of another type). Before, such a row sent the whole writing store
/// to the in-memory mode, and `vaultctl repair` did not mend it. Now it is its project's damaged sync
/// state (`VaultSync.DamagedRows`), and `repair` mends it here.
extension VaultSync {
    static let forkLeftOutTable = "sync_fork_left_out"

    /// What a writer makes (`keepLeftOut`), as SQL over the columns.
    static let wholeForkLeftOutRow = """
        typeof(hash) = 'blob' AND length(hash) = 32 AND typeof(project_id) = 'blob' AND length(project_id) = 16
        AND typeof(device_id) = 'blob' AND length(device_id) = 16 AND typeof(counter) = 'integer' AND counter >= 1
        AND typeof(parts) = 'integer' AND parts >= 1 AND typeof(forked_by) = 'blob' AND length(forked_by) = 16
        AND typeof(left_at) = 'integer'
        """

    /// Mends the damaged left-out row `rowid` of `project`: its device, counter and part count written
    /// again from the sealed record its hash names (as a damaged `sync_records` row's are,
    /// `DamagedRecords`); the device that forked, when damaged, that of another whole row of the same
    /// signer and number (a copy of the same fork), else the record's signer (who forked, unless the
    /// record was built on another device's fork); when it was left out, when not a time, now.
    /// A row whose record does not open so is dropped, with its sealed parts unless a stored record
    /// is named by the same hash: a left-out copy only bounds what a forker may choose (§19.4), and
    /// forgetting one is what a vault did before it kept them. Returns whether it was mended.
    func mendForkLeftOut(_ rowid: Int64, of project: WritingProject) throws -> Bool {
        guard let row = try database.queryOne("SELECT hash, parts FROM sync_fork_left_out WHERE rowid = ?", [.integer(rowid)]) else { return false }
        let hash = (try? row.blob("hash")) ?? []
        if hash.count == 32, let opened = try DamagedRecords.openedRecord(hash, parts: try? row.integer("parts"), of: project, with: self) {
            let record = opened.record
            let forker = try database.queryOne("""
                SELECT forked_by FROM sync_fork_left_out WHERE project_id = ? AND device_id = ? AND counter = ? AND rowid != ?
                    AND typeof(forked_by) = 'blob' AND length(forked_by) = 16 LIMIT 1
                """, [.blob(project.id.bytes), .blob(record.device.bytes), .integer(Int64(record.counter)), .integer(rowid)])
                .flatMap { try? DeviceID(bytes: try $0.blob("forked_by")) } ?? record.device
            try database.query("""
                UPDATE sync_fork_left_out SET device_id = ?, counter = ?, parts = ?,
                    forked_by = CASE WHEN typeof(forked_by) = 'blob' AND length(forked_by) = 16 THEN forked_by ELSE ? END,
                    left_at = CASE WHEN typeof(left_at) = 'integer' THEN left_at ELSE ? END
                WHERE rowid = ?
                """, [.blob(record.device.bytes), .integer(Int64(record.counter)), .integer(opened.parts), .blob(forker.bytes),
                      .integer(store.clock.now()), .integer(rowid)])
            return true
        }
        if hash.count == 32, try database.queryOne("SELECT 1 FROM sync_records WHERE hash = ?", [.blob(hash)]) == nil {
            for part in 0..<DamagedRecords.mostParts { try? transaction.removeRecord(at: try Self.location(hash, part: part), in: project.compartment) }
        }
        try database.query("DELETE FROM sync_fork_left_out WHERE rowid = ?", [.integer(rowid)])
        return false
    }
}
