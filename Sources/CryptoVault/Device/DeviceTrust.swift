/// How far this vault trusts a paired device (issue 17, SECURITY.md §19.8): the owner's own device
/// ("mine": the same person's laptop or desk machine, to which privileged projects may sync) or
/// someone else's ("other": today's sharing rules, privileged compartments refused). Chosen on each
/// screen at pairing, recorded on each side as `peer.trust`, and changed later only explicitly.
public enum DeviceTrust: String, Sendable, CaseIterable {
    case mine
    case other
}

extension AuditAction {
    /// A paired device's trust level set or changed (details: the level, the previous one or
    /// "none", and whether it was chosen at pairing).
    public static let peerTrust = AuditAction("peer.trust")
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

    /// The trust level this vault holds for `deviceID`, or nil (a pairing made before trust levels:
    /// treated as someone else's until the owner says otherwise).
    package static func stored(deviceID: DeviceID, in database: Database) throws -> DeviceTrust? {
        guard let row = try database.queryOne("SELECT trust FROM peer_trust WHERE peer_device_id = ?", [.blob(deviceID.bytes)]) else { return nil }
        guard let trust = DeviceTrust(rawValue: try row.text("trust")) else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: an unknown trust level for device \(deviceID)")
        }
        return trust
    }
}

extension Vault {
    /// The trust level of the paired device `deviceID`, or nil if none was set. Needs no unlock.
    public func trust(of deviceID: DeviceID) throws -> DeviceTrust? {
        try read { database in try DeviceTrust.stored(deviceID: deviceID, in: database) }
    }
}

extension UnlockedVault {
    /// Sets the trust level of a paired device, with its `peer.trust` entry in the same transaction.
    /// A device that is not paired is refused (`.pairingNotFound`); setting the level it has already
    /// records nothing and returns false.
    @discardableResult
    public func setTrust(_ trust: DeviceTrust, of deviceID: DeviceID, atPairing: Bool = false) throws -> Bool {
        try transaction { tx in
            guard try FamilyPairing.stored(deviceID: deviceID, in: tx.database) != nil else {
                throw CryptoVaultError(.pairingNotFound, "no device with fingerprint \(deviceID.fingerprint) is paired with this vault")
            }
            let previous = try DeviceTrust.stored(deviceID: deviceID, in: tx.database)
            guard previous != trust else { return false }
            try tx.database.query("""
                INSERT INTO peer_trust (peer_device_id, trust, set_at) VALUES (?, ?, ?)
                ON CONFLICT (peer_device_id) DO UPDATE SET trust = excluded.trust, set_at = excluded.set_at
                """, [.blob(deviceID.bytes), .text(trust.rawValue), .integer(VaultClock.system.now())])
            try tx.record(.peerTrust, subject: deviceID, details: [.init("trust", trust.rawValue), .init("previous", previous?.rawValue ?? "none"),
                                                                   .init("at-pairing", atPairing ? "yes" : "no")])
            return true
        }
    }
}
