/// A device this vault paired with (SECURITY.md §4.7): the peer's identity as it proved it during
/// pairing, its two public keys pinned for every later channel, and which side hosted.
public struct FamilyPairing: Sendable, Equatable {
    public enum Role: String, Sendable {
        /// This device showed the code (`pair host`).
        case host
        /// This device typed the code (`pair join`).
        case join
    }

    public let peer: DeviceProfile
    public let role: Role
    /// Seconds since the Unix epoch, UTC.
    public let pairedAt: Int64

    public init(peer: DeviceProfile, role: Role, pairedAt: Int64) {
        self.peer = peer
        self.role = role
        self.pairedAt = pairedAt
    }
}

extension FamilyPairing {
    /// The pairing with the device `deviceID`, or nil, read in the caller's transaction (a witness
    /// checks it in the transaction of the request it answers). `family_pairings` is read and written
    /// only in this file.
    package static func stored(deviceID: DeviceID, in database: Database) throws -> FamilyPairing? {
        try database.queryOne("SELECT * FROM family_pairings WHERE peer_device_id = ?", [.blob(deviceID.bytes)]).map(Vault.pairing)
    }
}

extension Vault {
    /// Every pairing, oldest first. Needs no unlock: a pairing holds only public keys.
    public func familyPairings() throws -> [FamilyPairing] {
        try read { database in
            try database.query("SELECT * FROM family_pairings ORDER BY paired_at, id").map(Self.pairing)
        }
    }

    static func pairing(_ row: Row) throws -> FamilyPairing {
        let rowID = try row.integer("id")
        let peer: DeviceProfile
        do {
            peer = try DeviceProfile(signingPublicKey: row.blob("peer_signing_public_key"), noisePublicKey: row.blob("peer_noise_public_key"),
                                      name: row.text("peer_name"), createdAt: row.integer("peer_created_at"), deviceID: DeviceID(bytes: row.blob("peer_device_id")))
        } catch let error as CryptoVaultError where error.code != .database {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: pairing \(rowID) is invalid (\(error.message))")
        }
        guard let role = FamilyPairing.Role(rawValue: try row.text("role")) else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: pairing \(rowID) has an unknown role")
        }
        return FamilyPairing(peer: peer, role: role, pairedAt: try row.integer("paired_at"))
    }
}

extension UnlockedVault {
    /// Stores a pairing, with its `peer.pair` audit entry in the same transaction. Pairing again with
    /// the same device (same id, so the same keys) replaces its name, role and time.
    public func storePairing(_ pairing: FamilyPairing) throws {
        let peer = pairing.peer
        try transaction { tx in
            try tx.database.query("""
                INSERT INTO family_pairings (peer_device_id, peer_name, peer_created_at, peer_signing_public_key,
                                             peer_noise_public_key, role, paired_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (peer_device_id) DO UPDATE SET peer_name = excluded.peer_name,
                    peer_created_at = excluded.peer_created_at, role = excluded.role, paired_at = excluded.paired_at
                """, [.blob(peer.deviceID.bytes), .text(peer.name), .integer(peer.createdAt), .blob(peer.signingPublicKey),
                      .blob(peer.noisePublicKey), .text(pairing.role.rawValue), .integer(pairing.pairedAt)])
            try tx.record(.peerPair, subject: peer.deviceID, details: [.init("name", peer.name), .init("role", pairing.role.rawValue)])
        }
    }

    /// Deletes the pairing with `deviceID` and its trust level, with its `peer.revoke` audit entry in the same
    /// transaction. From then on the channel refuses that device's key (servers look pins up for every
    /// connection). Throws `.pairingNotFound` if no pairing has that id; the removed pairing is returned.
    @discardableResult
    public func revokePairing(deviceID: DeviceID) throws -> FamilyPairing {
        try transaction { tx in try FamilyPairing.revoke(deviceID: deviceID, in: tx) }
    }

    /// Renames the pairing with `deviceID` (the name this vault knows that device by), with its
    /// `device.rename` entry in the same transaction; returns the old name. The pinned keys stay.
    /// Throws `.invalidName` for a name `validate(chosenName:)` refuses, `.pairingNotFound` if no pairing has that id.
    @discardableResult
    public func renamePairing(deviceID: DeviceID, to name: String) throws -> String {
        try DeviceProfile.validate(chosenName: name)
        return try transaction { tx in
            guard let pairing = try tx.database.queryOne("SELECT * FROM family_pairings WHERE peer_device_id = ?",
                                                         [.blob(deviceID.bytes)]).map(Vault.pairing) else {
                throw CryptoVaultError(.pairingNotFound, "no device with fingerprint \(deviceID.fingerprint) is paired with this vault")
            }
            try tx.database.query("UPDATE family_pairings SET peer_name = ? WHERE peer_device_id = ?", [.text(name), .blob(deviceID.bytes)])
            try tx.record(.deviceRename, subject: deviceID, details: [.init("old-name", pairing.peer.name), .init("name", name)])
            return pairing.peer.name
        }
    }

    /// Records a pairing attempt that failed, with the reason (an error code, never a secret).
    /// The peer's claimed id is not recorded: nothing proved it.
    public func recordPairingFailure(reason: String) throws {
        try record(VaultEvent(.peerPairFailed, details: [.init("reason", reason)]))
    }
}

extension FamilyPairing {
    /// `revokePairing` in the caller's transaction, so a module that keeps more with a revocation
    /// (the exchange's demotions, SECURITY.md §19.9) commits it with the `peer.revoke` entry.
    package static func revoke(deviceID: DeviceID, in tx: VaultTransaction) throws -> FamilyPairing {
        guard let pairing = try stored(deviceID: deviceID, in: tx.database) else {
            throw CryptoVaultError(.pairingNotFound, "no device with fingerprint \(deviceID.fingerprint) is paired with this vault")
        }
        try tx.database.query("DELETE FROM family_pairings WHERE peer_device_id = ?", [.blob(deviceID.bytes)])
        // Its trust level goes with it: a pairing made again is trusted afresh, and a damaged level
        // is gone (attack review s8, F10).
        try DeviceTrust.forget(deviceID: deviceID, in: tx.database)
        try tx.record(.peerRevoke, subject: deviceID, details: [.init("name", pairing.peer.name), .init("role", pairing.role.rawValue)])
        return pairing
    }
}
