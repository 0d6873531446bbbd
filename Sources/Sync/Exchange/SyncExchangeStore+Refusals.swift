import CryptoVault
import Writing

/// `sync_refusals` (migration exchange-9): a project's records refused with a device, each way,
/// while it lasts (`SyncProjectRefusal`, attack review s8, F20).
extension SyncExchangeStore {
    /// Keeps the last exchange's refusals of `project`'s records with `device` on `side`: how many,
    /// and why (the codes, each once, `bounded`); the first time of this run of refusals stays.
    func keepRefusal(of project: ProjectID, by device: DeviceID, side: SyncProjectRefusal.Side, records: Int, reasons: [String],
                     at time: Int64) throws {
        try database.query("""
            INSERT INTO sync_refusals (device_id, project_id, side, records, reasons, since, last_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (device_id, project_id, side) DO UPDATE SET records = excluded.records, reasons = excluded.reasons,
                last_at = excluded.last_at
            """, [.blob(device.bytes), .blob(project.bytes), .text(side.rawValue), .integer(Int64(records)),
                  .text(Self.bounded(Array(Set(reasons)).sorted().joined(separator: ", "))), .integer(time), .integer(time)])
    }

    /// Whether a refusal of `project` with `device` on `side` is kept.
    func hasRefusal(of project: ProjectID, by device: DeviceID, side: SyncProjectRefusal.Side) throws -> Bool {
        try database.queryOne("SELECT 1 FROM sync_refusals WHERE device_id = ? AND project_id = ? AND side = ?",
                              [.blob(device.bytes), .blob(project.bytes), .text(side.rawValue)]) != nil
    }

    /// How many refused offers of `device` are kept (rows of no refused record: the offer refused here).
    func refusedOfferCount(by device: DeviceID) throws -> Int {
        Int(try database.queryOne("SELECT count(*) AS kept FROM sync_refusals WHERE device_id = ? AND records = 0",
                                  [.blob(device.bytes)])?.integer("kept") ?? 0)
    }

    func forgetRefusal(of project: ProjectID, by device: DeviceID, side: SyncProjectRefusal.Side) throws {
        try database.query("DELETE FROM sync_refusals WHERE device_id = ? AND project_id = ? AND side = ?",
                           [.blob(device.bytes), .blob(project.bytes), .text(side.rawValue)])
    }

    /// Every refusal kept (of `project`, or of every project), by project, device and side.
    func refusals(of project: ProjectID? = nil, skipping damaged: Set<ProjectID> = []) throws -> [SyncProjectRefusal] {
        let rows = try project.map {
            try database.query("SELECT * FROM sync_refusals WHERE project_id = ? ORDER BY device_id, side", [.blob($0.bytes)])
        } ?? database.query("SELECT * FROM sync_refusals ORDER BY project_id, device_id, side")
        // A damaged project's rows (`SyncExchangeDamage`) are not read as if whole.
        return try rows.filter { row in (try? ProjectID(bytes: row.blob("project_id"))).map { !damaged.contains($0) } ?? damaged.isEmpty }
            .map(Self.refusal)
    }

    private static func refusal(_ row: Row) throws -> SyncProjectRefusal {
        SyncProjectRefusal(peer: try DeviceID(bytes: try row.blob("device_id")), project: try ProjectID(bytes: try row.blob("project_id")),
                           side: SyncProjectRefusal.Side(rawValue: try row.text("side")) ?? .here, records: Int(try row.integer("records")),
                           reasons: try row.text("reasons").components(separatedBy: ", "), since: try row.integer("since"),
                           lastAt: try row.integer("last_at"))
    }

    /// The projects whose last exchange with `device` left them (`sync_project_skips`) or whose
    /// records are being refused with it either way, each once, in id order; not one whose offer
    /// alone the owner's standing choice refuses (`SyncProjectRefusal.declinedCodes`) when the
    /// device is not `mine`.
    func projectsNotInSync(with device: DeviceID, mine: Bool) throws -> [ProjectID] {
        let skipped = try database.query("SELECT project_id FROM sync_project_skips WHERE device_id = ?", [.blob(device.bytes)])
            .map { try ProjectID(bytes: try $0.blob("project_id")) }
        let refused = try database.query("SELECT * FROM sync_refusals WHERE device_id = ?", [.blob(device.bytes)]).map(Self.refusal)
            .filter { !$0.declined(byOwnersChoiceAmong: mine ? [device] : []) && !$0.shreddedThere }.map(\.project)
        return Set(skipped + refused).sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }
}
