/// How far this vault trusts a paired device (issue 17, SECURITY.md §19.8): the owner's own device
/// ("mine": the same person's laptop or desk machine, to which privileged projects may sync) or
/// someone else's ("other": today's sharing rules, privileged compartments refused). Chosen on each
/// screen at pairing, recorded on each side as `peer.trust`, and changed later only explicitly.
public enum DeviceTrust: String, Sendable, CaseIterable {
    case mine
    case other
}

extension DeviceTrust {
    /// `peer_trust` (migration `device-trust-1`) is read and written only in this file.
    static let migrationName = "device-trust-1"
    static let migrationSQL = """
        CREATE TABLE peer_trust (
            peer_device_id BLOB PRIMARY KEY CHECK (length(peer_device_id) = 16),
            trust TEXT NOT NULL CHECK (trust IN ('mine', 'other')),
            set_at INTEGER NOT NULL
        );
        """

    /// The one table whose damaged rows CryptoVault reads safely (`VaultIntegrity`): a level that is
    /// not one reads as `other`, which grants nothing.
    static let tableName = "peer_trust"

    /// The trust level this vault holds for `deviceID`, or nil (a pairing made before trust levels:
    /// treated as someone else's until the owner says otherwise). A stored value that is no level (a
    /// disk error; the CHECK binds only writers) reads as `other`, the level that grants nothing, as a
    /// pairing without a row does (attack review s8, F10: it stopped every egress and every sync);
    /// `damaged(in:)` lists those devices, so the owner is warned and can set the level again.
    package static func stored(deviceID: DeviceID, in database: Database) throws -> DeviceTrust? {
        try storedRow(deviceID: deviceID, in: database).map { $0 ?? .other }
    }

    /// nil when the device has no row; .some(nil) when its row holds no level.
    fileprivate static func storedRow(deviceID: DeviceID, in database: Database) throws -> DeviceTrust?? {
        guard let row = try database.queryOne("SELECT trust FROM peer_trust WHERE peer_device_id = ?", [.blob(deviceID.bytes)]) else { return nil }
        return .some((try? row.text("trust")).flatMap(DeviceTrust.init(rawValue:)))
    }

    /// The devices whose stored value is no level, each read as `other`.
    static func damaged(in database: Database) throws -> [DeviceID] {
        try database.query("SELECT peer_device_id FROM peer_trust WHERE typeof(trust) != 'text' OR trust NOT IN ('mine', 'other') ORDER BY rowid")
            .compactMap { row in (try? row.blob("peer_device_id")).flatMap { try? DeviceID(bytes: $0) } }
    }

    /// Deletes the device's row, in the caller's transaction (a revoked pairing's trust goes with it).
    static func forget(deviceID: DeviceID, in database: Database) throws {
        try database.query("DELETE FROM peer_trust WHERE peer_device_id = ?", [.blob(deviceID.bytes)])
    }
}

extension Vault {
    /// The trust level of the paired device `deviceID`, or nil if none was set. Needs no unlock.
    public func trust(of deviceID: DeviceID) throws -> DeviceTrust? {
        try read { database in try DeviceTrust.stored(deviceID: deviceID, in: database) }
    }

    /// The devices whose stored trust level is damaged: each is read as `other` (grants nothing) until
    /// `setTrust` stores a level again. Needs no unlock.
    public func devicesWithDamagedTrust() throws -> [DeviceID] {
        try read { database in try DeviceTrust.damaged(in: database) }
    }
}

extension UnlockedVault {
    /// Sets the trust level of a paired device, with its `peer.trust` entry in the same transaction.
    /// A device that is not paired is refused (`.pairingNotFound`); setting the level it has already
    /// records nothing and returns false.
    @discardableResult
    public func setTrust(_ trust: DeviceTrust, of deviceID: DeviceID, atPairing: Bool = false) throws -> Bool {
        try transaction { tx in try DeviceTrust.set(trust, of: deviceID, atPairing: atPairing, in: tx) }
    }
}

extension DeviceTrust {
    /// `setTrust` in the caller's transaction, so a module that keeps more with a change of level
    /// (the exchange's demotions, SECURITY.md §19.9) commits it with the `peer.trust` entry.
    /// `reason`, when given, is a detail of the entry (`relayed-demotion`).
    package static func set(_ trust: DeviceTrust, of deviceID: DeviceID, atPairing: Bool, reason: String? = nil,
                            in tx: VaultTransaction) throws -> Bool {
        guard try FamilyPairing.stored(deviceID: deviceID, in: tx.database) != nil else {
            throw CryptoVaultError(.pairingNotFound, "no device with fingerprint \(deviceID.fingerprint) is paired with this vault")
        }
        // A damaged row is overwritten and recorded as such ("damaged"), never read as a level.
        let previous = try storedRow(deviceID: deviceID, in: tx.database)
        guard previous != .some(trust) else { return false }
        try tx.database.query("""
            INSERT INTO peer_trust (peer_device_id, trust, set_at) VALUES (?, ?, ?)
            ON CONFLICT (peer_device_id) DO UPDATE SET trust = excluded.trust, set_at = excluded.set_at
            """, [.blob(deviceID.bytes), .text(trust.rawValue), .integer(VaultClock.system.now())])
        var details: [VaultEvent.Detail] = [.init("trust", trust.rawValue), .init("previous", previous.map { $0?.rawValue ?? "damaged" } ?? "none"),
                                            .init("at-pairing", atPairing ? "yes" : "no")]
        if let reason { details.append(.init("reason", reason)) }
        try tx.record(.peerTrust, subject: deviceID, details: details)
        return true
    }

    /// When the device's stored level was set (this vault's clock), or nil when it has none.
    package static func setAt(deviceID: DeviceID, in database: Database) throws -> Int64? {
        try database.queryOne("SELECT set_at FROM peer_trust WHERE peer_device_id = ?", [.blob(deviceID.bytes)]).map { try $0.integer("set_at") }
    }
}

extension DeviceTrust {
    /// A restored or recovered vault's own devices, held as someone else's until the owner confirms
    /// each (SECURITY.md §19.10; review 17 s11, N-s11-4): the backup holds the pairings as they were
    /// when it was made, so a device the owner revoked or made `other` since (a stolen tablet) would be
    /// `mine` again and take the next privileged chart. Each is recorded as `peer.trust` (reason
    /// `restore`), in the restore's transaction; nothing is passed to other devices, since this is no
    /// judgement of the device. Returns them, oldest pairing first.
    package static func holdAfterRestore(in tx: VaultTransaction) throws -> [DeviceID] {
        let held = try tx.database.query("SELECT peer_device_id FROM peer_trust WHERE trust = 'mine' ORDER BY rowid")
            .map { try DeviceID(bytes: try $0.blob("peer_device_id")) }
        for device in held {
            try tx.database.query("UPDATE peer_trust SET trust = 'other', set_at = ? WHERE peer_device_id = ?",
                                  [.integer(VaultClock.system.now()), .blob(device.bytes)])
            try tx.record(.peerTrust, subject: device, details: [.init("trust", DeviceTrust.other.rawValue), .init("previous", DeviceTrust.mine.rawValue),
                                                                 .init("at-pairing", "no"), .init("reason", "restore")])
        }
        return held
    }
}
