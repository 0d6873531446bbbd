/// How the recipient keeps a shared compartment's keys (SECURITY.md §9, "Sharing compartments"):
///
///     shared keys key = HKDF-SHA-256(IKM = MK, salt = vault_id, info = "vaultctl shared compartment keys v1", L = 32)
///     sealed_key      = nonce (24 random) || XChaCha20-Poly1305(shared keys key, nonce, compartment key,
///                           AD = "vaultctl shared compartment keys v1" || vault_id || source vault id
///                                || compartment id || u32be(version) || role byte || sender device id)
///
/// The AD binds each key to its row: a key moved to another compartment or version, or a row whose
/// role was edited from viewer to editor, fails to open and is reported as damage.
struct SharedKeySealing {
    static let info = Array("vaultctl shared compartment keys v1".utf8)
    static let sealedSize = XChaChaPoly.nonceSize + 32 + XChaChaPoly.tagSize

    private let key: SecureBytes
    private let vaultID: VaultID

    init(masterKey: SecureBytes, vaultID: VaultID) throws {
        key = try HKDF.deriveKey(inputKeyMaterial: masterKey, salt: vaultID.bytes, info: Self.info, outputCount: 32)
        self.vaultID = vaultID
    }

    func seal(_ compartmentKey: SecureBytes, version: UInt32, compartmentID: CompartmentID, share: CompartmentShare) throws -> [UInt8] {
        let nonce = try SecureRandom.bytes(XChaChaPoly.nonceSize)
        return nonce + (try XChaChaPoly.sealSecret(compartmentKey, key: key, nonce: nonce,
                                                   authenticating: associatedData(version, compartmentID, share)))
    }

    func open(_ sealed: [UInt8], version: UInt32, compartmentID: CompartmentID, share: CompartmentShare) throws -> SecureBytes {
        guard sealed.count == Self.sealedSize else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: a shared compartment key has the wrong size")
        }
        do {
            return try XChaChaPoly.openSecret(Array(sealed.dropFirst(XChaChaPoly.nonceSize)), key: key,
                                              nonce: Array(sealed.prefix(XChaChaPoly.nonceSize)),
                                              authenticating: associatedData(version, compartmentID, share))
        } catch {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: a shared compartment key fails authentication")
        }
    }

    private func associatedData(_ version: UInt32, _ compartmentID: CompartmentID, _ share: CompartmentShare) -> [UInt8] {
        Self.info + vaultID.bytes + share.sourceVaultID.bytes + compartmentID.bytes + ByteEncoding.bigEndian(version) + [share.role.grantByte]
            + share.senderDeviceID.bytes
    }
}
