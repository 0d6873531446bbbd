/// The key of keyed hashes that find a sealed name without opening it (SECURITY.md §3, and §14.1
/// for the writing model's project names). It is derived from the master key, so whoever holds the
/// unlocked vault computes the hashes (the vault's ordinary access, no session), and a reader of the
/// database alone cannot. Each user names its `domain`, which keeps its hashes apart from every other:
///
///     lookup key(domain) = HKDF-SHA-256(IKM = MK, salt = vault_id,
///                                       info = "vaultctl name lookup v1" || 0x00 || domain, L = 32)
///     lookup hash        = HMAC-SHA-256(lookup key(domain), message)
///
/// What a hash gives away is said where it is used: a holder of the master key can test a guessed
/// name against it without opening the record it stands for, so without a session and unrecorded.
/// A user binds each message to its row (the writing model: the project's id), so that to a reader
/// without the key two rows' hashes do not even say whether their names are equal.
public struct NameLookupKey: Sendable {
    static let info = Array("vaultctl name lookup v1".utf8)
    private let key: SecureBytes

    /// The key of `domain` under `masterKey` (an unlocked vault makes it with `nameLookupKey(domain:)`;
    /// known-answer tests give the master key themselves).
    public init(masterKey: SecureBytes, vaultID: VaultID, domain: String) throws {
        key = try HKDF.deriveKey(inputKeyMaterial: masterKey, salt: vaultID.bytes, info: Self.info + [0] + Array(domain.utf8),
                                 outputCount: 32)
    }

    /// HMAC-SHA-256 of `message` under this key (32 bytes; a user may keep a prefix of it).
    public func hash(_ message: [UInt8]) -> [UInt8] {
        HMAC.sha256(key: key, message: message)
    }
}

extension UnlockedVault {
    /// The lookup key of `domain` under this vault's master key (`NameLookupKey`). Derived at each
    /// call: a caller that hashes many names keeps the key for as long as it needs it.
    public func nameLookupKey(domain: String) throws -> NameLookupKey {
        try NameLookupKey(masterKey: masterKey, vaultID: vaultID, domain: domain)
    }
}
