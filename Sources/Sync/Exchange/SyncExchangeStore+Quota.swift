import CryptoVault
import Writing

/// `sync_device_quotas` (migration exchange-12): what each device other than the owner's own added to
/// each project here on its last day of adding any (`SyncDeviceQuota`, review 17 s8, F13); the day's
/// bound is over the device's rows of that day, all projects together.
extension SyncExchangeStore {
    /// What `device` added to all projects here on `day` (rows of another day are not counted),
    /// each count at most `SyncDeviceQuota`'s greatest bound. Summed as `total` (a float: never the
    /// integer overflow of `sum`) and cut there, so a damaged row read between two checks of the
    /// tables (past any bound: `SyncExchangeHealth` makes it the device's damage) neither fails every
    /// exchange with the device nor traps: the device is then past its day's bound (reviewer12 on
    /// ac2bc31, F13 LOW).
    func quotaUse(of device: DeviceID, on day: Int64) throws -> SyncQuotaUse {
        guard let row = try database.queryOne("""
            SELECT CAST(max(0, min(?, total(records))) AS INTEGER) AS records, CAST(max(0, min(?, total(bytes))) AS INTEGER) AS bytes
            FROM sync_device_quotas WHERE device_id = ? AND day = ?
            """, [.integer(Int64(SyncDeviceQuota.greatestRecords)), .integer(Int64(SyncDeviceQuota.greatestBytes)), .blob(device.bytes),
                  .integer(day)]) else { return SyncQuotaUse() }
        return SyncQuotaUse(records: try row.nonNegativeInteger("records"), bytes: try row.nonNegativeInteger("bytes"))
    }

    /// Adds what `device` just added to `project` to its use of `day` (a row of an earlier day starts
    /// afresh). Each count stays within `SyncDeviceQuota`'s greatest bound whatever it is given, so
    /// the row stays one a writer makes (`SyncExchangeHealth`).
    func chargeQuota(of device: DeviceID, in project: ProjectID, on day: Int64, _ use: SyncQuotaUse) throws {
        let (records, bytes) = (SyncDeviceQuota.greatestRecords, SyncDeviceQuota.greatestBytes)
        try database.query("""
            INSERT INTO sync_device_quotas (device_id, project_id, day, records, bytes) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (device_id, project_id) DO UPDATE SET
                records = CASE WHEN day = excluded.day THEN min(records + excluded.records, ?6) ELSE excluded.records END,
                bytes = CASE WHEN day = excluded.day THEN min(bytes + excluded.bytes, ?7) ELSE excluded.bytes END,
                day = excluded.day
            """, [.blob(device.bytes), .blob(project.bytes), .integer(day), .integer(Int64(min(max(use.records, 0), records))),
                  .integer(Int64(min(max(use.bytes, 0), bytes))), .integer(Int64(records)), .integer(Int64(bytes))])
    }
}
