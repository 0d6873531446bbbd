import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Compartments of an unlocked vault.
///
/// Names are sealed (XChaCha20-Poly1305) and indexed by a keyed hash, so the database file does not
/// reveal them. Each key version has its own random salt: shredding the salts (`destroy`) makes the
/// keys impossible to derive again, even with the master key.
extension UnlockedVault {
    /// Makes a compartment in a transaction of its own (`VaultTransaction.createCompartment` makes
    /// one inside a caller's transaction, with whatever else must commit with it).
    public func createCompartment(named typedName: String, register: Register, privileged: Bool? = nil) throws -> VaultCompartment {
        try transaction { tx in try tx.createCompartment(named: typedName, register: register, privileged: privileged) }
    }

    /// Every live compartment, sorted by name.
    public func compartments() throws -> [VaultCompartment] {
        let names = try compartmentNameKeys()
        return try vault.withDatabase { database in
            try database.readTransaction {
                try database.query("SELECT * FROM compartments WHERE destroyed_at IS NULL")
                    .map { try loadCompartment($0, names: names, database: database) }
            }
        }.sorted { $0.name < $1.name }
    }

    public func compartment(named typedName: String) throws -> VaultCompartment {
        let name = VaultCompartment.normalized(typedName)
        let names = try compartmentNameKeys()
        return try vault.withDatabase { database in
            try database.readTransaction {
                guard let row = try database.queryOne("SELECT * FROM compartments WHERE name_hash = ? AND destroyed_at IS NULL",
                                                      [.blob(names.lookupHash(name))]) else {
                    throw CryptoVaultError(.compartmentNotFound, "no compartment named '\(name)'")
                }
                return try loadCompartment(row, names: names, database: database)
            }
        }
    }

    /// The live compartment with this id (as named in a bundle header).
    public func compartment(withID id: CompartmentID) throws -> VaultCompartment {
        let names = try compartmentNameKeys()
        return try vault.withDatabase { database in
            try database.readTransaction {
                guard let row = try database.queryOne("SELECT * FROM compartments WHERE uuid = ?", [.blob(id.bytes)]) else {
                    throw CryptoVaultError(.foreignBundle, "header: its compartment does not exist in this vault")
                }
                guard case .null = row["destroyed_at"] else {
                    throw CryptoVaultError(.foreignBundle, "header: its compartment was destroyed; it can never be opened")
                }
                return try loadCompartment(row, names: names, database: database)
            }
        }
    }

    /// Every compartment this vault holds a row of, by id: whether it was destroyed. A destroyed
    /// compartment's row stays (its name and salts gone), so what names one names something shredded
    /// here; an id with no row names nothing of this vault, which is damage where a row of this
    /// vault holds it (review 17 s14, N-s14-9: both were the one `.foreignBundle` of `compartment(withID:)`).
    public func compartmentsDestroyed() throws -> [CompartmentID: Bool] {
        try vault.withDatabase { database in
            try database.readTransaction {
                var found: [CompartmentID: Bool] = [:]
                for row in try database.query("SELECT uuid, destroyed_at IS NOT NULL AS destroyed FROM compartments") {
                    guard let id = try? CompartmentID(bytes: try row.blob("uuid")) else { continue }
                    found[id] = try row.integer("destroyed") != 0
                }
                return found
            }
        }
    }

    /// Whether compartment `id` was destroyed here: nil when this vault holds no row of it.
    public func wasDestroyed(compartment id: CompartmentID) throws -> Bool? {
        try vault.withDatabase { database in
            try database.readTransaction {
                try database.queryOne("SELECT destroyed_at IS NOT NULL AS destroyed FROM compartments WHERE uuid = ?", [.blob(id.bytes)])
                    .map { try $0.integer("destroyed") != 0 }
            }
        }
    }

    /// The live compartment at this row of `compartments`, or nil if there is none or it was destroyed
    /// (for the bundles listed by `storedBundles`).
    func liveCompartment(rowID: Int64) throws -> VaultCompartment? {
        let names = try compartmentNameKeys()
        return try vault.withDatabase { database in
            try database.readTransaction {
                try database.queryOne("SELECT * FROM compartments WHERE id = ? AND destroyed_at IS NULL", [.integer(rowID)])
                    .map { try loadCompartment($0, names: names, database: database) }
            }
        }
    }

    private func loadCompartment(_ row: Row, names: CompartmentNameKeys, database: Database) throws -> VaultCompartment {
        let rowID = try row.integer("id")
        let id = try CompartmentID(bytes: try row.blob("uuid"))
        guard let register = Register(rawValue: try row.text("register")) else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: compartment \(rowID) has an unknown register")
        }
        // The name hash is what lookups match on, so it must be the hash of the sealed (authenticated)
        // name: two rows' hashes swapped would otherwise send `put --compartment A` into B.
        let name = try names.open(try row.blob("sealed_name"), compartment: id, vaultID: vaultID)
        let nameHash = try row.blob("name_hash")
        guard constantTimeEquals(names.lookupHash(name), nameHash) else {
            throw CryptoVaultError(.corruptVault,
                "the vault database is damaged: compartment \(rowID)'s name hash is not its name's (rows altered or swapped)")
        }
        let isPrivileged = try row.integer("privileged") == 1
        try checkBinding(row, rowID: rowID, id: id, nameHash: nameHash, register: register, privileged: isPrivileged)
        let versions = try database.query("SELECT * FROM compartment_keys WHERE compartment_id = ? ORDER BY version",
                                          [.integer(rowID)]).map { version in
            guard let number = UInt32(exactly: try version.integer("version")) else {
                throw CryptoVaultError(.corruptVault, "the vault database is damaged: compartment \(rowID) has an impossible key version")
            }
            return VaultCompartment.KeyVersion(version: number, createdAt: try version.integer("created_at"),
                                               retiredAt: try? version.integer("retired_at"))
        }
        return VaultCompartment(rowID: rowID, id: id, name: name, register: register, isPrivileged: isPrivileged,
                                createdAt: try row.integer("created_at"), keyVersions: versions)
    }

    /// `privileged` and `register` are clear columns that decide whether a session is needed: they
    /// are obeyed only with a valid binding MAC (SECURITY.md §4.6), else the compartment is refused.
    private func checkBinding(_ row: Row, rowID: Int64, id: CompartmentID, nameHash: [UInt8], register: Register,
                              privileged: Bool) throws {
        let metadata = try metadataMAC()
        let expected = metadata.compartmentBinding(id: id, nameHash: nameHash, register: register.rawValue, privileged: privileged)
        let stored: [UInt8]? = if case .blob(let bytes) = row["binding"] { bytes } else { nil }
        guard metadata.isValid(stored, expected: expected) else {
            throw CryptoVaultError(.corruptVault, """
                the vault database is damaged: compartment \(rowID) fails its binding (its privileged flag, register \
                or name hash was changed outside vaultctl); it is refused
                """)
        }
    }

    /// Adds a key version; earlier versions stay readable. Returns the new version number.
    @discardableResult
    public func rotateCompartment(named name: String) throws -> UInt32 {
        let compartment = try compartment(named: name)
        let salt = try SecureRandom.bytes(32)
        return try vault.withDatabase { database in
            try database.writeTransaction {
                let newest = try database.queryOne("SELECT max(version) AS newest FROM compartment_keys WHERE compartment_id = ?",
                                                   [.integer(compartment.rowID)])?.integer("newest") ?? 0
                guard newest < Int64(UInt32.max) else {
                    throw CryptoVaultError(.invalidInput, "compartment '\(name)' has used every key version number")
                }
                try database.query("INSERT INTO compartment_keys (compartment_id, version, salt, created_at) VALUES (?, ?, ?, ?)",
                                   [.integer(compartment.rowID), .integer(newest + 1), .blob(salt), .integer(VaultClock.system.now())])
                try journal(VaultEvent(.compartmentRotate, compartmentID: compartment.id,
                                       subjectID: VaultCompartment.keyVersionSubject(UInt32(newest + 1))), in: database)
                return UInt32(newest + 1)
            }
        }
    }

    /// Retires an older key version: its salt is shredded as `destroy` does, so what was sealed under it
    /// can no longer be opened (rewrap it to the current version first). The current version cannot
    /// be retired; rotate first.
    ///
    /// Refused (`.keyVersionInUse`, naming them) while stored bundles are still sealed under it: the
    /// check runs inside the write transaction that shreds the salt, so a `put` cannot slip in between.
    public func retireCompartmentVersion(named name: String, version: UInt32) throws {
        let compartment = try compartment(named: name)
        guard let entry = compartment.keyVersions.first(where: { $0.version == version }), entry.isActive else {
            throw CryptoVaultError(.unknownKeyVersion, "compartment '\(name)' has no active key version \(version)")
        }
        guard version != compartment.currentVersion else {
            throw CryptoVaultError(.invalidInput, "key version \(version) is the one '\(name)' seals with; rotate before retiring it")
        }
        try vault.withDatabase { database in
            try database.writeTransaction {
                try Self.refuseIfInUse(compartment, version: version, in: database)
                try database.query("UPDATE compartment_keys SET salt = NULL, retired_at = ? WHERE compartment_id = ? AND version = ?",
                                   [.integer(VaultClock.system.now()), .integer(compartment.rowID), .integer(Int64(version))])
                try journal(VaultEvent(.compartmentRetire, compartmentID: compartment.id,
                                       subjectID: VaultCompartment.keyVersionSubject(version)), in: database)
            }
            recordKeyCache.forget(compartment.id)
            try database.checkpointAndTruncateLog()
        }
    }

    /// Refuses while stored bundles or sealed records (SECURITY.md §4.8) still use the version, naming them.
    private static func refuseIfInUse(_ compartment: VaultCompartment, version: UInt32, in database: Database) throws {
        let bundles = try BundleStore.bundleIDs(compartmentRowID: compartment.rowID, keyVersion: version, in: database)
            .map(\.hex)
        let records = try SealedRecordStore(database).locations(compartmentRowID: compartment.rowID, keyVersion: version).map(\.description)
        guard !bundles.isEmpty || !records.isEmpty else { return }
        let users = [(bundles, "stored bundle(s)"), (records, "sealed record(s)")].filter { !$0.0.isEmpty }.map { names, kind in
            "\(names.count) \(kind): " + names.prefix(20).joined(separator: ", ") + (names.count > 20 ? ", and \(names.count - 20) more" : "")
        }
        throw CryptoVaultError(.keyVersionInUse, """
            key version \(version) of '\(compartment.name)' still seals \(users.joined(separator: "; ")); \
            run 'vaultctl compartment rewrap' first (nothing was retired)
            """)
    }

    /// Shreds the compartment: its key salts and sealed name are deleted (overwritten, as the database
    /// runs with secure_delete) and the write-ahead log is checkpointed and truncated so no copy
    /// lingers there. Its stored bundles go with it: their rows are deleted (each recorded as
    /// `bundle.rm`) in the same transaction, and their files after the commit. A crash between the two
    /// leaves files without rows, which the next sweep treats as orphans. Returns how many went.
    @discardableResult
    public func destroyCompartment(named name: String) throws -> Int {
        let compartment = try compartment(named: name)
        let bundles = try vault.withDatabase { database in
            let bundles = try database.writeTransaction {
                let bundles = try BundleStore.removeAll(compartmentRowID: compartment.rowID, in: database)
                for bundle in bundles {
                    try record(.bundleRm, compartmentID: compartment.id, bundleID: bundle.id, bytes: bundle.bytes, in: database)
                }
                // Its sealed records go in the same transaction (their keys go with the salts anyway).
                let records = try SealedRecordStore(database).removeAll(compartmentRowID: compartment.rowID)
                try database.query("DELETE FROM compartment_keys WHERE compartment_id = ?", [.integer(compartment.rowID)])
                try database.query("UPDATE compartments SET name_hash = NULL, sealed_name = NULL, destroyed_at = ? WHERE id = ?",
                                   [.integer(VaultClock.system.now()), .integer(compartment.rowID)])
                try journal(VaultEvent(.compartmentDestroy, compartmentID: compartment.id,
                                       details: [.init("bundles", String(bundles.count))]
                                           + (records > 0 ? [.init("records", String(records))] : [])), in: database)
                return bundles
            }
            recordKeyCache.forget(compartment.id)
            try database.checkpointAndTruncateLog()
            return bundles
        }
        let assets = AssetFolder(path: vault.assetsPath)
        for bundle in bundles {
            unlink(assets.path(of: bundle.id))
            unlink(assets.journalPath(of: bundle.id))
        }
        return bundles.count
    }

    /// The key of `compartment` at `version`, or `.unknownKeyVersion` if it does not exist or is retired.
    /// Not public: a privileged compartment's key must not be obtainable outside a session (see
    /// `CompartmentKeyring`); the package's own tools and tests may still derive it.
    package func compartmentKey(for compartment: VaultCompartment, version: UInt32) throws -> SecureBytes {
        if let share = compartment.sharing { return try sharedCompartmentKey(for: compartment, share: share, version: version) }
        return try vault.withDatabase { database in try compartmentKey(for: compartment, version: version, in: database) }
    }

    /// `compartmentKey(for:version:)` read through a connection the caller already holds (inside its
    /// transaction), for the vault's own compartments.
    func compartmentKey(for compartment: VaultCompartment, version: UInt32, in database: Database) throws -> SecureBytes {
        try Self.requireOwn(compartment)
        return try KeyHierarchy.compartmentKey(masterKey: masterKey, vaultID: vaultID, compartmentID: compartment.id,
                                               version: version, salt: try activeSalt(of: compartment, version: version, in: database))
    }

    /// The record keys of `compartment` at `version` (§4.8), the version's salt read through the
    /// caller's transaction every time (`.unknownKeyVersion` once retired or destroyed) and the keys
    /// derived from it at most once per unlocked vault (`RecordKeyCache`, SECURITY.md §5).
    func recordKeys(for compartment: VaultCompartment, version: UInt32, in database: Database) throws -> RecordKeys {
        try Self.requireOwn(compartment)
        let salt = try activeSalt(of: compartment, version: version, in: database)
        let derive = {
            try RecordKeys(compartmentKey: try KeyHierarchy.compartmentKey(masterKey: self.masterKey, vaultID: self.vaultID, compartmentID: compartment.id,
                                                                           version: version, salt: salt))
        }
        // A privileged compartment's record key opens what only a session may read: it is derived for
        // this transaction (a seal, a rewrap) and never kept past it (SECURITY.md §5).
        guard !compartment.isPrivileged else { return try derive() }
        return try recordKeyCache.keys(compartment: compartment.id, version: version, salt: salt, derive: derive)
    }

    /// The salt of an active key version, read in the caller's transaction.
    private func activeSalt(of compartment: VaultCompartment, version: UInt32, in database: Database) throws -> [UInt8] {
        let salt = try database.queryOne("""
            SELECT salt FROM compartment_keys WHERE compartment_id = ? AND version = ? AND retired_at IS NULL
            """, [.integer(compartment.rowID), .integer(Int64(version))])?.blob("salt")
        guard let salt else {
            throw CryptoVaultError(.unknownKeyVersion, "compartment '\(compartment.name)' has no active key version \(version)")
        }
        return salt
    }
}

extension VaultTransaction {
    /// The live compartment `id`, loaded (its binding and name checked) at most once per transaction:
    /// nothing can change a compartment's row or key versions while this write transaction is open
    /// (another connection waits for it; rotate, retire and destroy run in write transactions of
    /// their own, which cannot be nested in this one), so a second load would read the same rows.
    public func compartment(withID id: CompartmentID) throws -> VaultCompartment {
        if let loaded = loadedCompartments[id] { return loaded }
        let compartment = try vault.compartment(withID: id)
        loadedCompartments[id] = compartment
        return compartment
    }

    /// `UnlockedVault.compartmentsDestroyed`, read in this transaction.
    public func compartmentsDestroyed() throws -> [CompartmentID: Bool] { try vault.compartmentsDestroyed() }

    /// `UnlockedVault.wasDestroyed(compartment:)`, read in this transaction.
    public func wasDestroyed(compartment id: CompartmentID) throws -> Bool? { try vault.wasDestroyed(compartment: id) }

    /// Makes a compartment in this transaction: its row, its first key version and its
    /// `compartment.create` entry commit with the rest of the transaction or not at all (a writing
    /// project and its compartment are made so, SECURITY.md §14).
    ///
    /// Nothing here is durable outside the transaction: the keys are not stored, wrapped or written
    /// to a file but derived when needed from the master key and the version's random salt
    /// (`KeyHierarchy.compartmentKey`), and the salt lives only in the `compartment_keys` row. A
    /// rolled-back transaction takes the salt with it, so the compartment's keys can never be derived
    /// again, and the `VaultCompartment` returned names a row that does not exist (every use fails).
    public func createCompartment(named typedName: String, register: Register, privileged: Bool? = nil) throws -> VaultCompartment {
        let name = VaultCompartment.normalized(typedName)
        try VaultCompartment.validate(name: name)
        let names = try vault.compartmentNameKeys()
        let nameHash = names.lookupHash(name)
        if try CompartmentStore.isNameTaken(nameHash, in: database)
            || SharedCompartmentStore.rowID(nameHash: nameHash, in: database) != nil {
            throw CryptoVaultError(.compartmentExists, "a compartment with that name already exists")
        }
        let id = try CompartmentID.random()
        let isPrivileged = privileged ?? register.isPrivilegedByDefault
        let binding = try vault.metadataMAC()
            .compartmentBinding(id: id, nameHash: nameHash, register: register.rawValue, privileged: isPrivileged)
        try CompartmentStore.insert(id: id, nameHash: nameHash, sealedName: try names.seal(name, compartment: id, vaultID: vault.vaultID),
                                    register: register, privileged: isPrivileged, binding: binding,
                                    salt: try SecureRandom.bytes(32), in: database)
        try record(.compartmentCreate, compartment: id, details: [
            .init("name", name), .init("register", register.rawValue), .init("privileged", isPrivileged ? "yes" : "no"),
        ])
        return try vault.compartment(named: name)
    }
}

/// The `compartments` and `compartment_keys` rows other owners need, read inside the caller's
/// transaction: every statement naming the two tables is in this file (OwnedSQLGuardTests).
enum CompartmentStore {
    /// Inserts a new compartment with its key version 1, in the caller's transaction.
    static func insert(id: CompartmentID, nameHash: [UInt8], sealedName: [UInt8], register: Register, privileged: Bool,
                       binding: [UInt8], salt: [UInt8], in database: Database) throws {
        let now = VaultClock.system.now()
        try database.query("""
            INSERT INTO compartments (uuid, name_hash, sealed_name, register, privileged, created_at, binding)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.blob(id.bytes), .blob(nameHash), .blob(sealedName), .text(register.rawValue),
                  .integer(privileged ? 1 : 0), .integer(now), .blob(binding)])
        try database.query("INSERT INTO compartment_keys (compartment_id, version, salt, created_at) VALUES (?, 1, ?, ?)",
                           [.integer(database.lastInsertRowID), .blob(salt), .integer(now)])
    }

    /// Whether one of this vault's own compartments (live or not yet shredded) has this name hash.
    static func isNameTaken(_ nameHash: [UInt8], in database: Database) throws -> Bool {
        try database.queryOne("SELECT id FROM compartments WHERE name_hash = ?", [.blob(nameHash)]) != nil
    }

    /// Whether the compartment at `rowID` exists and is not destroyed.
    static func isLive(rowID: Int64, in database: Database) throws -> Bool {
        try database.queryOne("SELECT id FROM compartments WHERE id = ? AND destroyed_at IS NULL", [.integer(rowID)]) != nil
    }

    /// Whether key version `version` of the compartment at `rowID` exists and is not retired.
    static func isActive(rowID: Int64, version: UInt32, in database: Database) throws -> Bool {
        try database.queryOne("SELECT version FROM compartment_keys WHERE compartment_id = ? AND version = ? AND retired_at IS NULL",
                              [.integer(rowID), .integer(Int64(version))]) != nil
    }

    /// The row ids of the compartments not destroyed.
    static func liveRowIDs(in database: Database) throws -> Set<Int64> {
        Set(try database.query("SELECT id FROM compartments WHERE destroyed_at IS NULL").map { try $0.integer("id") })
    }

    /// How many compartments are live, and how many of them privileged (for `status`, without a key).
    static func liveCounts(in database: Database) throws -> (total: Int, privileged: Int) {
        let counts = try database.queryOne("""
            SELECT count(*) AS total, coalesce(sum(privileged), 0) AS privileged FROM compartments WHERE destroyed_at IS NULL
            """)
        return (Int(try counts?.integer("total") ?? 0), Int(try counts?.integer("privileged") ?? 0))
    }
}

/// The two keys derived for compartment names: one keys the lookup hash, one seals the name.
struct CompartmentNameKeys: Sendable {
    let lookupKey: SecureBytes
    let sealingKey: SecureBytes

    init(masterKey: SecureBytes, vaultID: VaultID) throws {
        let both = try HKDF.deriveKey(inputKeyMaterial: masterKey, salt: vaultID.bytes, info: KeyHierarchy.compartmentNameInfo, outputCount: 64)
        lookupKey = try both.slice(0..<32)
        sealingKey = try both.slice(32..<64)
    }

    func lookupHash(_ name: String) -> [UInt8] {
        HMAC.sha256(key: lookupKey, message: Array(name.utf8))
    }

    /// nonce (24 bytes) || ciphertext || tag, bound to the vault and the compartment.
    func seal(_ name: String, compartment: CompartmentID, vaultID: VaultID) throws -> [UInt8] {
        let nonce = try SecureRandom.bytes(XChaChaPoly.nonceSize)
        return nonce + (try XChaChaPoly.seal(Array(name.utf8), key: sealingKey, nonce: nonce, authenticating: vaultID.bytes + compartment.bytes))
    }

    func open(_ sealed: [UInt8], compartment: CompartmentID, vaultID: VaultID) throws -> String {
        guard sealed.count > XChaChaPoly.nonceSize else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: a compartment name is truncated")
        }
        let nonce = Array(sealed.prefix(XChaChaPoly.nonceSize))
        do {
            let name = try XChaChaPoly.open(Array(sealed.dropFirst(XChaChaPoly.nonceSize)), key: sealingKey, nonce: nonce,
                                            authenticating: vaultID.bytes + compartment.bytes)
            return String(decoding: name, as: UTF8.self)
        } catch {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: a compartment name fails authentication")
        }
    }
}
