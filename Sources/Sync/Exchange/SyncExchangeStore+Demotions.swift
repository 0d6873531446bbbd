import CryptoVault

/// `sync_demotions` (migration `exchange-13`; review 17 s8, F4): the devices the owner said on one
/// of their own devices are no longer theirs, kept to pass on to the others and to treat as not
/// the owner's here. Read and written only here.
extension SyncExchangeStore {
    /// Every demotion held, devices ascending.
    func demotions() throws -> [SyncDemotion] {
        try database.query("SELECT * FROM sync_demotions ORDER BY device_id").map(Self.demotionRow)
    }

    /// The demotions passed on: the newest `SyncWire.maximumDemotions`, devices ascending.
    func newestDemotions() throws -> [SyncDemotion] {
        try database.query("SELECT * FROM sync_demotions ORDER BY demoted_at DESC, device_id LIMIT ?",
                           [.integer(Int64(SyncWire.maximumDemotions))]).map(Self.demotionRow)
            .sorted { $0.device.bytes.lexicographicallyPrecedes($1.device.bytes) }
    }

    func demotion(of device: DeviceID) throws -> SyncDemotion? {
        try database.queryOne("SELECT * FROM sync_demotions WHERE device_id = ?", [.blob(device.bytes)]).map(Self.demotionRow)
    }

    func demotionCount() throws -> Int {
        Int(try database.queryOne("SELECT count(*) AS count FROM sync_demotions")?.integer("count") ?? 0)
    }

    /// Keeps `demotion` unless the device has one already (the first said stands).
    func addDemotion(_ demotion: SyncDemotion) throws {
        try database.query("""
            INSERT INTO sync_demotions (device_id, signing_key, demoted_at, demoted_by) VALUES (?, ?, ?, ?)
            ON CONFLICT (device_id) DO NOTHING
            """, [.blob(demotion.device.bytes), .blob(demotion.signingKey), .integer(Int64(demotion.demotedAt)), .blob(demotion.demotedBy.bytes)])
    }

    /// The owner made the device theirs again on this vault.
    func removeDemotion(of device: DeviceID) throws {
        try database.query("DELETE FROM sync_demotions WHERE device_id = ?", [.blob(device.bytes)])
    }

    private static func demotionRow(_ row: Row) throws -> SyncDemotion {
        SyncDemotion(device: try DeviceID(bytes: try row.blob("device_id")), signingKey: try row.blob("signing_key"),
                     demotedAt: UInt64(max(0, try row.integer("demoted_at"))), demotedBy: try DeviceID(bytes: try row.blob("demoted_by")))
    }
}
