/// Binding a vault's clear metadata to its master key (SECURITY.md §4.2, §4.6): new vaults are bound
/// when made; a vault made before schema 12 is bound once, at its first unlock, in an audited way.
///
/// `vault_meta` rows: `kdf_policy_mac` (the policy's MAC) and `metadata_bound` (a MAC that says every
/// compartment row carries a binding). Without `metadata_bound` the vault is taken to predate
/// bindings: the first unlock binds the values it finds and records each in the audit log
/// (`compartment.bind`, `vault.bind-metadata`), so a rebinding after someone deleted the marker is
/// visible there, never silent.
extension UnlockedVault {
    /// Binds every unbound live compartment and an unauthenticated KDF policy, unless the vault is
    /// already bound. One write transaction; a row that fails its name check stays unbound (refused).
    func bindMetadataIfNeeded() throws {
        let metadata = try metadataMAC()
        let names = try compartmentNameKeys()
        try vault.withDatabase { database in
            try database.writeTransaction {
                let marker = metadata.boundMarker(vaultID: vaultID)
                if metadata.isValid(try Self.metaBlob("metadata_bound", in: database), expected: marker) { return }
                for row in try database.query("SELECT * FROM compartments WHERE destroyed_at IS NULL AND binding IS NULL") {
                    try bindLegacyCompartment(row, metadata: metadata, names: names, in: database)
                }
                let policy = try bindLegacyPolicy(metadata: metadata, in: database)
                try Self.setMeta("metadata_bound", .blob(marker), in: database)
                try journal(VaultEvent(.vaultBindMetadata, details: policy.map { [.init("kdf_policy", $0)] } ?? []), in: database)
            }
        }
    }

    private func bindLegacyCompartment(_ row: Row, metadata: MetadataMAC, names: CompartmentNameKeys, in database: Database) throws {
        let id = try CompartmentID(bytes: try row.blob("uuid"))
        let nameHash = try row.blob("name_hash")
        // Only a row whose hash is its sealed name's is bound: a swapped row stays refused.
        guard let name = try? names.open(try row.blob("sealed_name"), compartment: id, vaultID: vaultID),
              constantTimeEquals(names.lookupHash(name), nameHash),
              let register = Register(rawValue: try row.text("register")) else { return }
        let privileged = try row.integer("privileged") == 1
        let binding = metadata.compartmentBinding(id: id, nameHash: nameHash, register: register.rawValue, privileged: privileged)
        try database.query("UPDATE compartments SET binding = ? WHERE id = ?", [.blob(binding), .integer(try row.integer("id"))])
        try journal(VaultEvent(.compartmentBind, compartmentID: id,
                               details: [.init("name", name), .init("register", register.rawValue),
                                         .init("privileged", privileged ? "yes" : "no")]), in: database)
    }

    /// Authenticates the stored policy if it has no MAC and is a valid policy; returns its text then.
    private func bindLegacyPolicy(metadata: MetadataMAC, in database: Database) throws -> String? {
        guard try Self.metaBlob("kdf_policy_mac", in: database) == nil,
              case .text(let text)? = try database.queryOne("SELECT value FROM vault_meta WHERE key = 'kdf_policy'")?["value"],
              let policy = try? KDFParameters(encoded: text), (try? policy.validate()) != nil else { return nil }
        try Self.setMeta("kdf_policy_mac", .blob(metadata.kdfPolicy(text)), in: database)
        return text
    }

    // MARK: The KDF policy

    /// The vault's KDF policy if its MAC verifies and it is within bounds, else nil with the reason:
    /// unlock-time upgrades and new passphrase slots follow only a policy the master key vouches for.
    func authenticatedKDFPolicy() throws -> (policy: KDFParameters?, problem: String?) {
        let metadata = try metadataMAC()
        return try vault.withDatabase { database in
            guard case .text(let text)? = try database.queryOne("SELECT value FROM vault_meta WHERE key = 'kdf_policy'")?["value"] else {
                return (nil, "the vault has no KDF policy")
            }
            guard metadata.isValid(try Self.metaBlob("kdf_policy_mac", in: database), expected: metadata.kdfPolicy(text)) else {
                return (nil, "the vault's KDF policy fails authentication (changed outside vaultctl)")
            }
            guard let policy = try? KDFParameters(encoded: text), (try? policy.validate()) != nil else {
                return (nil, "the vault's KDF policy is malformed or out of bounds")
            }
            return (policy, nil)
        }
    }

    /// Sets the parameters new and upgraded passphrase slots get, with its MAC, recorded as
    /// `vault.kdf-policy` (the policy text as a detail). The policy must be within bounds.
    package func setKDFPolicy(_ policy: KDFParameters) throws {
        try policy.validate()
        try vault.withDatabase { database in
            try database.writeTransaction {
                try storeKDFPolicy(policy, in: database)
                try journal(VaultEvent(.vaultKDFPolicy, details: [.init("kdf_policy", policy.encoded)]), in: database)
            }
        }
    }

    /// Writes the policy and its MAC (inside the caller's transaction).
    func storeKDFPolicy(_ policy: KDFParameters, in database: Database) throws {
        let metadata = try metadataMAC()
        try Self.setMeta("kdf_policy", .text(policy.encoded), in: database)
        try Self.setMeta("kdf_policy_mac", .blob(metadata.kdfPolicy(policy.encoded)), in: database)
    }

    /// Marks a new vault as bound (inside the caller's transaction).
    func markMetadataBound(in database: Database) throws {
        let metadata = try metadataMAC()
        try Self.setMeta("metadata_bound", .blob(metadata.boundMarker(vaultID: vaultID)), in: database)
    }

    private static func metaBlob(_ key: String, in database: Database) throws -> [UInt8]? {
        guard case .blob(let bytes)? = try database.queryOne("SELECT value FROM vault_meta WHERE key = ?", [.text(key)])?["value"] else {
            return nil
        }
        return bytes
    }

    private static func setMeta(_ key: String, _ value: SQLValue, in database: Database) throws {
        try database.query("INSERT INTO vault_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                           [.text(key), value])
    }
}
