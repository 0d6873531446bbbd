/// Compartments other vaults shared with this device, in `shared_compartments` and
/// `shared_compartment_keys` (SECURITY.md §9, "Sharing compartments").
///
/// A shared compartment is a `VaultCompartment` whose `sharing` is set: its uuid is the owner's
/// compartment id, its bundles name the owner's vault, and its keys come from the grant, resealed
/// under this vault's master key. Its `rowID` is the negated row id of `shared_compartments`, so it
/// can never be taken for a row of `compartments` (whose ids are positive).
extension UnlockedVault {
    /// Every shared compartment, sorted by name.
    public func sharedCompartments() throws -> [VaultCompartment] {
        let names = try compartmentNameKeys()
        return try vault.withDatabase { database in
            try database.readTransaction {
                try database.query("SELECT * FROM shared_compartments").map { try loadShared($0, names: names, database: database) }
            }
        }.sorted { $0.name < $1.name }
    }

    /// The shared compartment with this name, or nil.
    public func sharedCompartment(named typedName: String) throws -> VaultCompartment? {
        let names = try compartmentNameKeys()
        return try sharedCompartment(where: "name_hash = ?", [.blob(names.lookupHash(VaultCompartment.normalized(typedName)))])
    }

    /// The shared compartment that bundles naming this vault and compartment belong to, or nil.
    public func sharedCompartment(sourceVaultID: VaultID, compartmentID: CompartmentID) throws -> VaultCompartment? {
        try sharedCompartment(where: "source_vault_id = ? AND compartment_id = ?", [.blob(sourceVaultID.bytes), .blob(compartmentID.bytes)])
    }

    /// This vault's own compartment named so, else the shared one; `.compartmentNotFound` if neither.
    public func compartmentOrShared(named name: String) throws -> VaultCompartment {
        do {
            return try compartment(named: name)
        } catch let error as CryptoVaultError where error.code == .compartmentNotFound {
            guard let shared = try sharedCompartment(named: name) else { throw error }
            return shared
        }
    }

    private func sharedCompartment(where condition: String, _ parameters: [SQLValue]) throws -> VaultCompartment? {
        let names = try compartmentNameKeys()
        return try vault.withDatabase { database in
            try database.readTransaction {
                try database.queryOne("SELECT * FROM shared_compartments WHERE \(condition)", parameters)
                    .map { try loadShared($0, names: names, database: database) }
            }
        }
    }

    private func loadShared(_ row: Row, names: CompartmentNameKeys, database: Database) throws -> VaultCompartment {
        let rowID = try row.integer("id")
        guard let role = ShareRole(rawValue: try row.text("role")) else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: shared compartment \(rowID) has an unknown role")
        }
        let compartmentID = try CompartmentID(bytes: try row.blob("compartment_id"))
        let share = CompartmentShare(sourceVaultID: try VaultID(bytes: try row.blob("source_vault_id")), role: role,
                                     senderDeviceID: try DeviceID(bytes: try row.blob("sender_device_id")), grantedAt: try row.integer("granted_at"),
                                     receivedAt: try row.integer("received_at"))
        let versions = try database.query("SELECT version FROM shared_compartment_keys WHERE shared_compartment_id = ? ORDER BY version",
                                          [.integer(rowID)]).map { version in
            VaultCompartment.KeyVersion(version: UInt32(clamping: try version.integer("version")), createdAt: share.grantedAt, retiredAt: nil)
        }
        return VaultCompartment(rowID: -rowID, id: compartmentID,
                                name: try names.open(try row.blob("sealed_name"), compartment: compartmentID, vaultID: vaultID),
                                register: .general, isPrivileged: false, createdAt: share.receivedAt, keyVersions: versions,
                                sharing: share)
    }

    /// A shared compartment's key of `version`, opened from its sealed row.
    func sharedCompartmentKey(for compartment: VaultCompartment, share: CompartmentShare, version: UInt32) throws -> SecureBytes {
        let sealed = try vault.withDatabase { database in
            try database.queryOne("""
                SELECT sealed_key FROM shared_compartment_keys WHERE shared_compartment_id = ? AND version = ?
                """, [.integer(-compartment.rowID), .integer(Int64(version))])?.blob("sealed_key")
        }
        guard let sealed else {
            throw CryptoVaultError(.unknownKeyVersion, "shared compartment '\(compartment.name)' has no key version \(version)")
        }
        return try SharedKeySealing(masterKey: masterKey, vaultID: vaultID)
            .open(sealed, version: version, compartmentID: compartment.id, share: share)
    }

    /// Stores the keys of an accepted grant: the first grant for a compartment adds it, a later one
    /// replaces its role, name and keys (versions the owner retired go). Records `share.receive` in
    /// the same transaction.
    func storeSharedCompartment(_ grant: ShareGrant, keys: [UInt32: SecureBytes]) throws {
        let names = try compartmentNameKeys()
        let sealing = try SharedKeySealing(masterKey: masterKey, vaultID: vaultID)
        let share = CompartmentShare(sourceVaultID: grant.sourceVaultID, role: grant.role, senderDeviceID: grant.senderDeviceID,
                                     grantedAt: grant.issuedAt, receivedAt: VaultClock.system.now())
        let nameHash = names.lookupHash(grant.compartmentName)
        try vault.withDatabase { database in
            try database.writeTransaction {
                let existing = try database.queryOne("SELECT id, granted_at FROM shared_compartments WHERE source_vault_id = ? AND compartment_id = ?",
                                                     [.blob(grant.sourceVaultID.bytes), .blob(grant.compartmentID.bytes)])
                try checkAcceptable(grant, nameHash: nameHash, existingID: try existing?.integer("id"),
                                    existingGrantedAt: try existing?.integer("granted_at"), database: database)
                let rowID = try upsertShared(grant, share: share, nameHash: nameHash,
                                             sealedName: try names.seal(grant.compartmentName, compartment: grant.compartmentID, vaultID: vaultID),
                                             existingID: try existing?.integer("id"), database: database)
                try database.query("DELETE FROM shared_compartment_keys WHERE shared_compartment_id = ?", [.integer(rowID)])
                for version in grant.keyVersions {
                    guard let key = keys[version] else { throw CryptoVaultError(.invalidInput, "the grant's key version \(version) was not opened") }
                    try database.query("INSERT INTO shared_compartment_keys (shared_compartment_id, version, sealed_key) VALUES (?, ?, ?)",
                                       [.integer(rowID), .integer(Int64(version)),
                                        .blob(try sealing.seal(key, version: version, compartmentID: grant.compartmentID, share: share))])
                }
                try journal(VaultEvent(.shareReceive, compartmentID: grant.compartmentID, subject: grant.senderDeviceID,
                                       details: grant.auditDetails), in: database)
            }
        }
    }

    /// A later grant replaces an earlier one, never the reverse (a replayed old grant cannot undo a
    /// change of role); the name must not be another compartment's here.
    private func checkAcceptable(_ grant: ShareGrant, nameHash: [UInt8], existingID: Int64?, existingGrantedAt: Int64?,
                                 database: Database) throws {
        if let existingGrantedAt, existingGrantedAt > grant.issuedAt {
            throw CryptoVaultError(.staleShareGrant, "share grant: it is older than the grant already accepted for '\(grant.compartmentName)'")
        }
        let sharedNameID = try SharedCompartmentStore.rowID(nameHash: nameHash, in: database)
        if try CompartmentStore.isNameTaken(nameHash, in: database) || (sharedNameID != nil && sharedNameID != existingID) {
            throw CryptoVaultError(.compartmentExists, "a compartment named '\(grant.compartmentName)' already exists on this device")
        }
    }

    private func upsertShared(_ grant: ShareGrant, share: CompartmentShare, nameHash: [UInt8], sealedName: [UInt8],
                              existingID: Int64?, database: Database) throws -> Int64 {
        let values: [SQLValue] = [.blob(nameHash), .blob(sealedName), .text(share.role.rawValue), .blob(share.senderDeviceID.bytes),
                                  .integer(share.grantedAt), .integer(share.receivedAt)]
        if let existingID {
            try database.query("""
                UPDATE shared_compartments SET name_hash = ?, sealed_name = ?, role = ?, sender_device_id = ?, granted_at = ?,
                    received_at = ? WHERE id = ?
                """, values + [.integer(existingID)])
            return existingID
        }
        try database.query("""
            INSERT INTO shared_compartments (name_hash, sealed_name, role, sender_device_id, granted_at, received_at,
                                             source_vault_id, compartment_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, values + [.blob(grant.sourceVaultID.bytes), .blob(grant.compartmentID.bytes)])
        return database.lastInsertRowID
    }

}

/// The `shared_compartments` rows other owners need, inside the caller's transaction: every
/// statement naming the table is in this file (OwnedSQLGuardTests).
enum SharedCompartmentStore {
    /// The row of the shared compartment with this name hash, or nil.
    static func rowID(nameHash: [UInt8], in database: Database) throws -> Int64? {
        try database.queryOne("SELECT id FROM shared_compartments WHERE name_hash = ?", [.blob(nameHash)])?.integer("id")
    }
}
