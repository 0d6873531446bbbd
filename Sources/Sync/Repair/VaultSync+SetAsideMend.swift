import CryptoVault
import Writing

/// A damaged row of `sync_set_aside` (`VaultSync+SetAside`; closing note s13, "Left open"): one of
/// this device's records its project's origin refused, set aside as signed, whose clear columns no
/// writer stores (a counter a flipped sign bit made -5, a value of another type). Before, such a row
/// sent the whole writing store to the in-memory mode and `vaultctl repair` did not mend it. Now it
/// is its project's damaged sync state (`VaultSync.DamagedRows`), and `repair` mends it here.
extension VaultSync {
    /// What `vaultctl repair` did with one damaged set-aside row.
    enum SetAsideMend: Equatable {
        /// Its columns written again from the sealed record it names.
        case mended
        /// Dropped, with its sealed parts: the record it names does not open here as the one its
        /// hash names (its words are in the branch that kept them, `vaultctl conflicts`). `waits`:
        /// the row may have held one of this device's own records, whose counter must not be signed
        /// again (an own device may have taken it before the origin refused it), so the project
        /// waits for one sync with an own device (`OwnRecordFloor.untilOwnPull`).
        case dropped(waits: Bool)
    }

    /// Mends the damaged set-aside row `rowid` of `project`: its device, counter, lamport clock and
    /// part count written again from the sealed record its hash names, as a damaged `sync_records`
    /// row's are (`DamagedRecords`); the device that refused it, when damaged, from the project's
    /// other set-aside rows, else the project's origin `origin` (only the origin sets records
    /// aside); when it was stored or set aside, when not a time, now. A row whose record does not
    /// open so, or whose refusing device cannot be told, is dropped.
    func mendSetAside(_ rowid: Int64, of project: WritingProject, origin: DeviceID?) throws -> SetAsideMend {
        guard let row = try database.queryOne("SELECT hash, parts, device_id FROM sync_set_aside WHERE rowid = ?", [.integer(rowid)]) else {
            return .dropped(waits: false)
        }
        let hash = (try? row.blob("hash")) ?? []
        let wholeDevice = "typeof(refused_by) = 'blob' AND length(refused_by) = 16"
        let refusedBy = try database.queryOne("SELECT refused_by FROM sync_set_aside WHERE project_id = ? AND rowid != ? AND \(wholeDevice) LIMIT 1",
                                              [.blob(project.id.bytes), .integer(rowid)])
            .flatMap { try? DeviceID(bytes: try $0.blob("refused_by")) } ?? origin
        if hash.count == 32, let refusedBy, let opened = try DamagedRecords.openedRecord(hash, parts: try? row.integer("parts"), of: project, with: self) {
            let now = store.clock.now()
            try database.query("""
                UPDATE sync_set_aside SET device_id = ?, counter = ?, lamport = ?, parts = ?,
                    refused_by = CASE WHEN \(wholeDevice) THEN refused_by ELSE ? END,
                    stored_at = CASE WHEN typeof(stored_at) = 'integer' THEN stored_at ELSE ? END,
                    set_at = CASE WHEN typeof(set_at) = 'integer' THEN set_at ELSE ? END
                WHERE rowid = ?
                """, [.blob(opened.record.device.bytes), .integer(Int64(opened.record.counter)), .integer(Int64(opened.record.lamport)),
                      .integer(opened.parts), .blob(refusedBy.bytes), .integer(now), .integer(now), .integer(rowid)])
            return .mended
        }
        // Another device's record (its id whole) takes no counter of this device's: dropped alone.
        let device = (try? row.blob("device_id")).flatMap { try? DeviceID(bytes: $0) }
        // Its sealed parts go with it, unless a stored record is named by the same hash (a copied row).
        if hash.count == 32, try database.queryOne("SELECT 1 FROM sync_records WHERE hash = ?", [.blob(hash)]) == nil {
            for part in 0..<DamagedRecords.mostParts { try? transaction.removeRecord(at: try Self.location(hash, part: part), in: project.compartment) }
        }
        try database.query("DELETE FROM sync_set_aside WHERE rowid = ?", [.integer(rowid)])
        return .dropped(waits: device == nil || device == author.device)
    }
}
