import CryptoVault

/// `sync_demotions` (migration `exchange-13`; review 17 s8, F4): the devices the owner said on one
/// of their own devices are no longer theirs, each as its demoting device signed it, kept to pass
/// on to the others and to treat as not the owner's here; a row the owner lifted here (`peers trust …
/// mine`) stays, marked `lifted_at`, and counts for nothing else. Read and written only here.
extension SyncExchangeStore {
    /// A demotion held here, and whether this vault trusted the device `mine` when it kept it (a
    /// device that is, or ever was, the owner's here: its own signed demotions count here).
    struct HeldDemotion {
        let demotion: SyncDemotion
        let wasMine: Bool
    }

    /// Every demotion held, devices ascending.
    func demotions() throws -> [SyncDemotion] {
        try database.query("SELECT * FROM sync_demotions WHERE lifted_at IS NULL ORDER BY device_id").map { try Self.demotionRow($0).demotion }
    }

    /// The demotions passed on: the newest `SyncWire.maximumDemotions`, devices ascending.
    func newestDemotions() throws -> [SyncDemotion] {
        try database.query("SELECT * FROM sync_demotions WHERE lifted_at IS NULL ORDER BY demoted_at DESC, device_id LIMIT ?",
                           [.integer(Int64(SyncWire.maximumDemotions))]).map { try Self.demotionRow($0).demotion }
            .sorted { $0.device.bytes.lexicographicallyPrecedes($1.device.bytes) }
    }

    /// Each device held as demoted, and whether it was `mine` here when kept.
    func demotedDevices() throws -> [DeviceID: Bool] {
        Dictionary(try database.query("SELECT device_id, was_mine FROM sync_demotions WHERE lifted_at IS NULL").map {
            (try DeviceID(bytes: try $0.blob("device_id")), try $0.integer("was_mine") == 1)
        }, uniquingKeysWith: { first, _ in first })
    }

    func demotion(of device: DeviceID) throws -> HeldDemotion? {
        try database.queryOne("SELECT * FROM sync_demotions WHERE device_id = ? AND lifted_at IS NULL", [.blob(device.bytes)]).map(Self.demotionRow)
    }

    func demotionCount() throws -> Int {
        Int(try database.queryOne("SELECT count(*) AS count FROM sync_demotions WHERE lifted_at IS NULL")?.integer("count") ?? 0)
    }

    /// When the owner made the device theirs again here after a demotion of it (nil: never).
    func liftedAt(of device: DeviceID) throws -> Int64? {
        try database.queryOne("SELECT lifted_at FROM sync_demotions WHERE device_id = ? AND lifted_at IS NOT NULL",
                              [.blob(device.bytes)])?.integer("lifted_at")
    }

    /// Keeps `demotion` unless the device has one already (the first said stands); a lifted one it
    /// replaces.
    func addDemotion(_ demotion: SyncDemotion, wasMine: Bool) throws {
        try database.query("""
            INSERT INTO sync_demotions (device_id, signing_key, demoted_at, demoted_by, signature, was_mine) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (device_id) DO UPDATE SET signing_key = excluded.signing_key, demoted_at = excluded.demoted_at,
                demoted_by = excluded.demoted_by, signature = excluded.signature, was_mine = excluded.was_mine, lifted_at = NULL
                WHERE sync_demotions.lifted_at IS NOT NULL
            """, [.blob(demotion.device.bytes), .blob(demotion.signingKey), .integer(Int64(demotion.demotedAt)),
                  .blob(demotion.demotedBy.bytes), .blob(demotion.signature), .integer(wasMine ? 1 : 0)])
    }

    /// The owner made the device theirs again on this vault: its demotion is no longer held or passed
    /// on, but remembered as lifted at `at`, so no device held demoted here demotes it again.
    func liftDemotion(of device: DeviceID, at: Int64) throws {
        try database.query("UPDATE sync_demotions SET lifted_at = ? WHERE device_id = ? AND lifted_at IS NULL", [.integer(at), .blob(device.bytes)])
    }

    private static func demotionRow(_ row: Row) throws -> HeldDemotion {
        HeldDemotion(demotion: SyncDemotion(device: try DeviceID(bytes: try row.blob("device_id")), signingKey: try row.blob("signing_key"),
                                            demotedAt: UInt64(max(0, try row.integer("demoted_at"))),
                                            demotedBy: try DeviceID(bytes: try row.blob("demoted_by")), signature: try row.blob("signature")),
                     wasMine: try row.integer("was_mine") == 1)
    }
}
