/// The vault's backup key (SECURITY.md §13.2): an X25519 key pair whose public half is kept in the
/// clear in `vault_meta` and whose private half is sealed under a key derived from the master key.
///
/// A backup encrypts its database record to the public key, age-style (a fresh ephemeral key per
/// file), so `vaultctl backup` needs no passphrase, while only someone who can unlock the vault can
/// read the file back:
///
///     backup sealing key = HKDF(MK, salt = vault_id, "vaultctl backup key v1", 32)
///     backup_sealed_key  = nonce (24) || XChaCha20-Poly1305(private key, AD = label || vault_id || public key)
///     file key           = HKDF(X25519(ephemeral, public key), salt = ephemeral public || public key,
///                               "vaultctl backup database v2" || vault_id, 32)
public enum BackupKey {
    static let sealingInfo = Array("vaultctl backup key v1".utf8)
    static let fileKeyInfo = Array("vaultctl backup database v2".utf8)
    public static let publicKeyName = "backup_public_key"
    public static let sealedKeyName = "backup_sealed_key"
    /// 24-byte nonce, 32-byte key, 16-byte tag.
    public static let sealedKeySize = XChaChaPoly.nonceSize + X25519PrivateKey.keySize + XChaChaPoly.tagSize

    static func sealingKey(masterKey: SecureBytes, vaultID: VaultID) throws -> SecureBytes {
        try HKDF.deriveKey(inputKeyMaterial: masterKey, salt: vaultID.bytes, info: sealingInfo, outputCount: 32)
    }

    /// A new key pair, its private half sealed under the master key.
    static func make(masterKey: SecureBytes, vaultID: VaultID) throws -> (publicKey: [UInt8], sealedKey: [UInt8]) {
        let key = try X25519PrivateKey()
        let nonce = try SecureRandom.bytes(XChaChaPoly.nonceSize)
        let sealed = try XChaChaPoly.sealSecret(key.rawRepresentation, key: try sealingKey(masterKey: masterKey, vaultID: vaultID),
                                                nonce: nonce, authenticating: sealingInfo + vaultID.bytes + key.publicKey)
        return (key.publicKey, nonce + sealed)
    }

    /// The private key, if `sealedKey` opens under this master key and belongs to `publicKey`: a
    /// public key swapped in the clear (by someone who can write the vault folder) is refused here.
    public static func open(_ sealedKey: [UInt8], publicKey: [UInt8], masterKey: SecureBytes, vaultID: VaultID) throws -> X25519PrivateKey {
        guard sealedKey.count == sealedKeySize, publicKey.count == X25519PrivateKey.keySize else {
            throw CryptoVaultError(.corruptBackup, "the backup is refused: its backup key is not \(sealedKeySize) bytes")
        }
        let raw: SecureBytes
        do {
            raw = try XChaChaPoly.openSecret(Array(sealedKey.dropFirst(XChaChaPoly.nonceSize)), key: try sealingKey(masterKey: masterKey, vaultID: vaultID),
                                             nonce: Array(sealedKey.prefix(XChaChaPoly.nonceSize)), authenticating: sealingInfo + vaultID.bytes + publicKey)
        } catch {
            throw CryptoVaultError(.corruptBackup, "the backup is refused: its backup key does not open under this vault's master key (altered or swapped)")
        }
        let key = try X25519PrivateKey(rawRepresentation: raw)
        guard constantTimeEquals(key.publicKey, publicKey) else {
            throw CryptoVaultError(.corruptBackup, "the backup is refused: its backup key does not match its public key")
        }
        return key
    }

    /// The key of one file's database record (fresh per file: the ephemeral key is).
    static func fileKey(shared: SecureBytes, ephemeralPublicKey: [UInt8], recipientPublicKey: [UInt8], vaultID: VaultID) throws -> SecureBytes {
        try HKDF.deriveKey(inputKeyMaterial: shared, salt: ephemeralPublicKey + recipientPublicKey, info: fileKeyInfo + vaultID.bytes, outputCount: 32)
    }

    /// The writer's side: a fresh ephemeral key, and the file key it agrees with `recipientPublicKey`.
    static func encapsulate(to recipientPublicKey: [UInt8], vaultID: VaultID) throws -> (ephemeralPublicKey: [UInt8], fileKey: SecureBytes) {
        let ephemeral = try X25519PrivateKey()
        let shared = try ephemeral.sharedSecret(with: recipientPublicKey)
        return (ephemeral.publicKey, try fileKey(shared: shared, ephemeralPublicKey: ephemeral.publicKey, recipientPublicKey: recipientPublicKey, vaultID: vaultID))
    }

    /// The reader's side.
    public static func decapsulate(_ ephemeralPublicKey: [UInt8], with key: X25519PrivateKey, vaultID: VaultID) throws -> SecureBytes {
        let shared: SecureBytes
        do { shared = try key.sharedSecret(with: ephemeralPublicKey) } catch {
            throw CryptoVaultError(.corruptBackup, "the backup is refused: the database record's ephemeral key is not a usable X25519 key")
        }
        return try fileKey(shared: shared, ephemeralPublicKey: ephemeralPublicKey, recipientPublicKey: key.publicKey, vaultID: vaultID)
    }

    static func metaBlob(_ key: String, in database: Database) throws -> [UInt8]? {
        try VaultMeta.blob(key, in: database)
    }
}

extension Vault {
    /// The backup public key, or nil in a vault made before backups were encrypted and not yet given one.
    public func backupPublicKey() throws -> [UInt8]? {
        try read { database in
            guard let key = try BackupKey.metaBlob(BackupKey.publicKeyName, in: database) else { return nil }
            guard key.count == X25519PrivateKey.keySize, try BackupKey.metaBlob(BackupKey.sealedKeyName, in: database)?.count == BackupKey.sealedKeySize else {
                throw CryptoVaultError(.corruptVault, "the vault database is damaged: its backup key is malformed")
            }
            return key
        }
    }
}

extension UnlockedVault {
    /// Stores a new backup key pair inside the caller's transaction (at init).
    func storeBackupKey(in database: Database) throws {
        let made = try BackupKey.make(masterKey: masterKey, vaultID: vaultID)
        for (name, value) in [(BackupKey.publicKeyName, made.publicKey), (BackupKey.sealedKeyName, made.sealedKey)] {
            try VaultMeta.insert(name, value, in: database)
        }
    }

    /// Gives a vault made before encrypted backups its backup key, once, recorded as `backup.key-create`.
    /// Returns whether it had to.
    @discardableResult
    public func ensureBackupKey() throws -> Bool {
        try transaction { tx in
            guard try BackupKey.metaBlob(BackupKey.publicKeyName, in: tx.database) == nil else { return false }
            try storeBackupKey(in: tx.database)
            try tx.record(.backupKeyCreate)
            return true
        }
    }

    /// The backup private key, opened under this master key.
    public func backupPrivateKey() throws -> X25519PrivateKey {
        try vault.read { database in
            guard let publicKey = try BackupKey.metaBlob(BackupKey.publicKeyName, in: database),
                  let sealed = try BackupKey.metaBlob(BackupKey.sealedKeyName, in: database) else {
                throw CryptoVaultError(.corruptVault, "the vault has no backup key")
            }
            return try BackupKey.open(sealed, publicKey: publicKey, masterKey: masterKey, vaultID: vaultID)
        }
    }
}
