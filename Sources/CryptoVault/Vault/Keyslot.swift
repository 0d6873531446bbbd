/// One way to unlock the vault: a record that holds the master key wrapped under a key-encryption
/// key (KEK) derived from a passphrase, a recovery key or a set of recovery shares (the LUKS2 idea).
public struct Keyslot: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case passphrase
        case recoveryKey = "recovery-key"
        case recoveryShares = "recovery-shares"
    }

    public let id: Int64
    public let uuid: KeyslotID
    public let kind: Kind
    public let kdf: KeyslotKDF
    let salt: [UInt8]
    let nonce: [UInt8]
    let wrappedKey: [UInt8]
    public let threshold: Int?
    public let shareCount: Int?
    public let createdAt: Int64
    public let updatedAt: Int64

    /// A passphrase slot must name a password hash within bounds, a recovery slot HKDF. Checked when a
    /// row is read, before any key is derived, so a hostile row is refused without costing anything.
    private func checkConsistency() throws {
        switch (kind, kdf) {
        case (.passphrase, .passwordHash(let parameters)):
            try parameters.validate()
        case (.recoveryKey, .hkdfSHA256), (.recoveryShares, .hkdfSHA256):
            return
        default:
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: keyslot \(id) names the wrong KDF for its kind")
        }
    }

    /// What the wrapped master key is bound to: a slot cannot be moved to another vault, another
    /// kind, or other KDF parameters without failing authentication.
    static func associatedData(vaultID: VaultID, uuid: KeyslotID, kind: Kind, kdf: KeyslotKDF) -> [UInt8] {
        KeyHierarchy.keyslotAssociatedData + vaultID.bytes + uuid.bytes + Array(kind.rawValue.utf8) + [0] + Array(kdf.encoded.utf8)
    }

    /// The master key, if `kek` is the right key for this slot.
    func unwrap(with kek: SecureBytes, vaultID: VaultID) throws -> SecureBytes {
        let associatedData = Self.associatedData(vaultID: vaultID, uuid: uuid, kind: kind, kdf: kdf)
        return try XChaChaPoly.openSecret(wrappedKey, key: kek, nonce: nonce, authenticating: associatedData)
    }

    /// The columns of a new or rewritten slot: fresh nonce, master key sealed under `kek`.
    static func seal(masterKey: SecureBytes, kek: SecureBytes, vaultID: VaultID, uuid: KeyslotID, kind: Kind,
                     kdf: KeyslotKDF) throws -> (nonce: [UInt8], wrappedKey: [UInt8]) {
        let nonce = try SecureRandom.bytes(XChaChaPoly.nonceSize)
        let associatedData = associatedData(vaultID: vaultID, uuid: uuid, kind: kind, kdf: kdf)
        let wrapped = try XChaChaPoly.sealSecret(masterKey, key: kek, nonce: nonce, authenticating: associatedData)
        return (nonce, wrapped)
    }

    init(row: Row) throws {
        id = try row.integer("id")
        uuid = try KeyslotID(bytes: try row.blob("uuid"))
        guard let kind = Kind(rawValue: try row.text("kind")) else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: keyslot \(id) has an unknown kind")
        }
        self.kind = kind
        do {
            kdf = try KeyslotKDF(parsing: try row.text("kdf"))
        } catch {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: keyslot \(id) has unreadable KDF parameters")
        }
        salt = try row.blob("salt")
        nonce = try row.blob("nonce")
        wrappedKey = try row.blob("wrapped_key")
        threshold = (try? row.integer("threshold")).map(Int.init)
        shareCount = (try? row.integer("share_count")).map(Int.init)
        createdAt = try row.integer("created_at")
        updatedAt = try row.integer("updated_at")
        try checkConsistency()
    }
}

/// How a slot's KEK is derived. Passphrases get a memory-hard KDF; recovery keys and share secrets
/// already carry at least 160 bits of entropy, so HKDF is enough and keeps recovery fast.
public enum KeyslotKDF: Sendable, Equatable {
    case passwordHash(KDFParameters)
    case hkdfSHA256

    static let hkdfName = "hkdf-sha256"

    /// The canonical text stored in the `kdf` column (see SECURITY.md).
    public var encoded: String {
        switch self {
        case .passwordHash(let parameters): return parameters.encoded
        case .hkdfSHA256: return Self.hkdfName
        }
    }

    init(parsing text: String) throws {
        if text == Self.hkdfName {
            self = .hkdfSHA256
        } else {
            self = .passwordHash(try KDFParameters(encoded: text))
        }
    }
}
