/// The keys of one bundle, all derived from its random data key, so rewrapping the data key for a
/// new compartment key version changes none of them (and no payload byte).
///
///     HKDF-SHA-256(IKM = data key, salt = bundle id, info = "vaultctl bundle keys v1", L = 128)
///       = payload key || metadata key || header key || key commitment   (32 bytes each)
struct BundleKeys {
    static let info = Array("vaultctl bundle keys v1".utf8)
    static let wrapInfo = Array("vaultctl bundle key v1".utf8)
    static let dataKeySize = 32

    let payloadKey: SecureBytes
    let metadataKey: SecureBytes
    let headerKey: SecureBytes
    /// Public once derived: stored in the header so one header opens under exactly one data key
    /// (ChaCha20-Poly1305 alone does not commit to its key).
    let commitment: [UInt8]

    init(dataKey: SecureBytes, bundleID: BundleID) throws {
        let all = try HKDF.deriveKey(inputKeyMaterial: dataKey, salt: bundleID.bytes, info: Self.info, outputCount: 128)
        payloadKey = try all.slice(0..<32)
        metadataKey = try all.slice(32..<64)
        headerKey = try all.slice(64..<96)
        commitment = try all.slice(96..<128).exposedCopy()
    }

    /// Associated data of the wrapped data key: the bundle is bound to its vault, compartment, key
    /// version and identity, so it cannot be moved to another compartment or vault.
    static func wrapAssociatedData(vaultID: VaultID, compartmentID: CompartmentID, keyVersion: UInt32, bundleID: BundleID) -> [UInt8] {
        wrapInfo + vaultID.bytes + compartmentID.bytes + ByteEncoding.bigEndian(keyVersion) + bundleID.bytes
    }
}
