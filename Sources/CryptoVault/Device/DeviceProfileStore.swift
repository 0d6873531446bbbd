/// The vault's device identity in the `device_identity` table (one row at most).
extension Vault {
    /// The device identity, or nil if none was made yet. Needs no unlock: every field is public.
    public func deviceProfile() throws -> DeviceProfile? {
        try read { database in try database.queryOne("SELECT * FROM device_identity WHERE id = 1").map(Self.profile) }
    }

    static func profile(_ row: Row) throws -> DeviceProfile {
        do {
            return try DeviceProfile(signingPublicKey: row.blob("signing_public_key"), noisePublicKey: row.blob("noise_public_key"),
                                      name: row.text("name"), createdAt: row.integer("created_at"), deviceID: DeviceID(bytes: row.blob("device_id")))
        } catch let error as CryptoVaultError where error.code != .database {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: the device identity is invalid (\(error.message))")
        }
    }
}

extension UnlockedVault {
    /// The device's keys, made on first need: an Ed25519 signing key and an X25519 Noise static key,
    /// both fresh from the CSPRNG, their private halves sealed under a key derived from MK. Creation
    /// is recorded (`device.create`) in the same transaction.
    public func deviceKeys(nameIfNew: String = DeviceProfile.defaultName()) throws -> DeviceKeys {
        let sealing = try DeviceKeySealing(masterKey: masterKey, vaultID: vaultID)
        return try vault.withDatabase { database in
            try database.writeTransaction {
                if let row = try database.queryOne("SELECT * FROM device_identity WHERE id = 1") {
                    return try sealing.open(try row.blob("sealed_private_keys"), profile: try Vault.profile(row))
                }
                return try createDeviceKeys(named: nameIfNew, sealing: sealing, in: database)
            }
        }
    }

    /// The device's keys under the name a person chose for it (`pair host|join --name`): made with
    /// that name if there are none yet (`device.create`), renamed to it if they have another
    /// (`device.rename`), left alone if they have it. Throws `.invalidName` (`validate(chosenName:)`)
    /// before anything is made or changed.
    public func deviceKeys(named name: String) throws -> DeviceKeys {
        try DeviceProfile.validate(chosenName: name)
        let keys = try deviceKeys(nameIfNew: name)
        guard keys.profile.name != name else { return keys }
        try renameThisDevice(to: name)
        return try deviceKeys()
    }

    private func createDeviceKeys(named name: String, sealing: DeviceKeySealing, in database: Database) throws -> DeviceKeys {
        let signingKey = try Ed25519PrivateKey(), noiseKey = try X25519PrivateKey()
        let identity = try DeviceProfile(signingPublicKey: signingKey.publicKey, noisePublicKey: noiseKey.publicKey,
                                          name: name, createdAt: VaultClock.system.now())
        let sealed = try sealing.seal(signingKey: signingKey, noiseKey: noiseKey, deviceID: identity.deviceID)
        try database.query("""
            INSERT INTO device_identity (id, device_id, signing_public_key, noise_public_key, sealed_private_keys, name, created_at)
            VALUES (1, ?, ?, ?, ?, ?, ?)
            """, [.blob(identity.deviceID.bytes), .blob(identity.signingPublicKey), .blob(identity.noisePublicKey), .blob(sealed),
                  .text(identity.name), .integer(identity.createdAt)])
        try journal(VaultEvent(.deviceCreate, subject: identity.deviceID, details: [.init("name", name)]), in: database)
        return DeviceKeys(profile: identity, signingKey: signingKey, noiseKey: noiseKey)
    }
}

extension UnlockedVault {
    /// Renames this vault's device identity, with its `device.rename` entry (old and new name, sealed)
    /// in the same transaction; returns the old name. Only the label changes: the device id and keys
    /// stay, so no pairing breaks. Throws `.invalidName` for a name `validate(chosenName:)` refuses,
    /// `.pairingNotFound` if no identity was made yet.
    @discardableResult
    public func renameThisDevice(to name: String) throws -> String {
        try DeviceProfile.validate(chosenName: name)
        return try transaction { tx in
            guard let profile = try tx.database.queryOne("SELECT * FROM device_identity WHERE id = 1").map(Vault.profile) else {
                throw CryptoVaultError(.pairingNotFound, "this vault has no device identity yet ('vaultctl device' makes it)")
            }
            try tx.database.query("UPDATE device_identity SET name = ? WHERE id = 1", [.text(name)])
            try tx.record(.deviceRename, subject: profile.deviceID, details: [.init("old-name", profile.name), .init("name", name)])
            return profile.name
        }
    }
}
