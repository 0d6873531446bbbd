/// MACs over the vault's clear metadata (SECURITY.md §4.2, §4.6): the columns that steer security
/// decisions but carry no secret (a compartment's `privileged` flag and `register`, the KDF policy).
///
/// Anyone who can write `vault.db` can change a clear column; only a holder of the master key can
/// make a MAC for the new value. So a flag flipped with sqlite3 is refused instead of obeyed.
///
///     metadata key = HKDF-SHA-256(IKM = MK, salt = vault_id, info = "vaultctl metadata mac v1", L = 32)
///     MAC(label, fields) = HMAC-SHA-256(metadata key, label || 0x00 || fields)
struct MetadataMAC: Sendable {
    static let info = Array("vaultctl metadata mac v1".utf8)
    static let compartmentLabel = Array("vaultctl compartment binding v1".utf8)
    static let kdfPolicyLabel = Array("vaultctl kdf policy v1".utf8)
    static let boundLabel = Array("vaultctl metadata bound v1".utf8)

    private let key: SecureBytes

    init(masterKey: SecureBytes, vaultID: VaultID) throws {
        key = try HKDF.deriveKey(inputKeyMaterial: masterKey, salt: vaultID.bytes, info: Self.info, outputCount: 32)
    }

    /// compartment id (16, the 'uuid' column) || name_hash (32) || u8(length of register) || register (ASCII) || u8(privileged: 0 or 1).
    /// Every field is fixed-size or length-prefixed, so no two rows encode alike.
    func compartmentBinding(id: CompartmentID, nameHash: [UInt8], register: String, privileged: Bool) -> [UInt8] {
        let registerBytes = Array(register.utf8.prefix(255))
        let fields = id.bytes + nameHash + [UInt8(registerBytes.count)] + registerBytes + [privileged ? 1 : 0]
        return mac(Self.compartmentLabel, fields)
    }

    /// The exact UTF-8 text of `vault_meta.kdf_policy`.
    func kdfPolicy(_ text: String) -> [UInt8] {
        mac(Self.kdfPolicyLabel, Array(text.utf8))
    }

    /// The marker that says every compartment row of this vault carries a binding (vault_id as fields).
    func boundMarker(vaultID: VaultID) -> [UInt8] {
        mac(Self.boundLabel, vaultID.bytes)
    }

    func isValid(_ tag: [UInt8]?, expected: [UInt8]) -> Bool {
        guard let tag, tag.count == expected.count else { return false }
        return constantTimeEquals(tag, expected)
    }

    private func mac(_ label: [UInt8], _ fields: [UInt8]) -> [UInt8] {
        HMAC.sha256(key: key, message: label + [0] + fields)
    }
}
