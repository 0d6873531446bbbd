/// How a device's private keys are kept in the vault (SECURITY.md §4.7):
///
///     device key = HKDF-SHA-256(IKM = MK, salt = vault_id, info = "vaultctl device keys v1", L = 32)
///     sealed_private_keys = nonce (24 random)
///         || XChaCha20-Poly1305(device key, nonce, Ed25519 seed (32) || X25519 private key (32),
///                               AD = "vaultctl device keys v1" || vault_id || device_id)
///
/// The AD binds the sealed keys to this vault and to the public keys their id names, so a row copied
/// from another vault, or whose public keys were swapped, fails to open.
struct DeviceKeySealing {
    static let info = Array("vaultctl device keys v1".utf8)
    static let sealedSize = XChaChaPoly.nonceSize + Ed25519PrivateKey.seedSize + X25519PrivateKey.keySize + XChaChaPoly.tagSize

    private let key: SecureBytes
    private let vaultID: VaultID

    init(masterKey: SecureBytes, vaultID: VaultID) throws {
        key = try HKDF.deriveKey(inputKeyMaterial: masterKey, salt: vaultID.bytes, info: Self.info, outputCount: 32)
        self.vaultID = vaultID
    }

    func seal(signingKey: Ed25519PrivateKey, noiseKey: X25519PrivateKey, deviceID: DeviceID) throws -> [UInt8] {
        let nonce = try SecureRandom.bytes(XChaChaPoly.nonceSize)
        let both = try signingKey.seed.appending(noiseKey.rawRepresentation)
        return nonce + (try XChaChaPoly.sealSecret(both, key: key, nonce: nonce, authenticating: associatedData(deviceID)))
    }

    func open(_ sealed: [UInt8], profile identity: DeviceProfile) throws -> DeviceKeys {
        guard sealed.count == Self.sealedSize else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: the device's sealed keys have the wrong size")
        }
        let both: SecureBytes
        do {
            both = try XChaChaPoly.openSecret(Array(sealed.dropFirst(XChaChaPoly.nonceSize)), key: key,
                                              nonce: Array(sealed.prefix(XChaChaPoly.nonceSize)),
                                              authenticating: associatedData(identity.deviceID))
        } catch {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: the device's sealed keys fail authentication")
        }
        let signingKey = try Ed25519PrivateKey(seed: both.slice(0..<Ed25519PrivateKey.seedSize))
        let noiseKey = try X25519PrivateKey(rawRepresentation: both.slice(Ed25519PrivateKey.seedSize..<both.count))
        guard signingKey.publicKey == identity.signingPublicKey, noiseKey.publicKey == identity.noisePublicKey else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: the device's keys do not match its public keys")
        }
        return DeviceKeys(profile: identity, signingKey: signingKey, noiseKey: noiseKey)
    }

    private func associatedData(_ deviceID: DeviceID) -> [UInt8] { Self.info + vaultID.bytes + deviceID.bytes }
}
