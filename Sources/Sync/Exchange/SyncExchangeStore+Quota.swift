import CryptoVault
import Writing

/// `sync_device_quotas` (migration exchange-12): what each device other than the owner's own added to
/// each project here on its last day of adding any (`SyncDeviceQuota`, review 17 s8, F13); the day's
/// bound is over the device's rows of that day, all projects together.
extension SyncExchangeStore {
    /// What `device` added to all projects here on `day` (rows of another day are not counted).
    func quotaUse(of device: DeviceID, on day: Int64) throws -> SyncQuotaUse {
        guard let row = try database.queryOne("""
            SELECT coalesce(sum(records), 0) AS records, coalesce(sum(bytes), 0) AS bytes FROM sync_device_quotas WHERE device_id = ? AND day = ?
            """, [.blob(device.bytes), .integer(day)]) else { return SyncQuotaUse() }
        return SyncQuotaUse(records: Int(try row.integer("records")), bytes: Int(try row.integer("bytes")))
    }

    /// Adds what `device` just added to `project` to its use of `day` (a row of an earlier day starts afresh).
    func chargeQuota(of device: DeviceID, in project: ProjectID, on day: Int64, _ use: SyncQuotaUse) throws {
        try database.query("""
            INSERT INTO sync_device_quotas (device_id, project_id, day, records, bytes) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (device_id, project_id) DO UPDATE SET
                records = CASE WHEN day = excluded.day THEN records + excluded.records ELSE excluded.records END,
                bytes = CASE WHEN day = excluded.day THEN bytes + excluded.bytes ELSE excluded.bytes END,
                day = excluded.day
            """, [.blob(device.bytes), .blob(project.bytes), .integer(day), .integer(Int64(use.records)), .integer(Int64(use.bytes))])
    }
}
