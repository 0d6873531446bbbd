/// The cryptography of a share grant (SECURITY.md §9, "Sharing compartments"):
///
///     shared     = X25519(ephemeral private key, recipient's pinned X25519 key)
///     wrap key   = HKDF-SHA-256(IKM = shared, salt = ephemeral public key || recipient's X25519 key,
///                               info = "SealedVault share grant key v1", L = 32)
///     sealed key = ChaCha20-Poly1305(wrap key, nonce = 8 zero bytes || u32be(version), compartment key(version),
///                                    AD = "SealedVault share grant wrap v1" || source vault id || compartment id
///                                         || u32be(version) || role byte || sender device id || recipient device id)
///     signature  = Ed25519(sender's signing key, "SealedVault share grant signature v1" || every byte before it)
///
/// The ephemeral key is fresh for every grant, so each wrap key seals one grant's keys, under a
/// distinct nonce per version (versions are strictly increasing). The AD binds each key to what the
/// recipient will file it under; the signature, checked against the sender's pinned key, binds the
/// whole grant to the device that shares it, which X25519 alone (anyone can wrap for a public key) cannot.
enum ShareGrantWrapping {
    static let keyInfo = Array("SealedVault share grant key v1".utf8)
    static let associatedDataLabel = Array("SealedVault share grant wrap v1".utf8)
    static let signatureContext = Array("SealedVault share grant signature v1".utf8)

    /// What the sender puts in a grant besides the two devices.
    struct Contents {
        let role: ShareRole
        let issuedAt: Int64
        let sourceVaultID: VaultID
        let compartmentID: CompartmentID
        let compartmentName: String
        /// Each key version with its compartment key, in increasing order of version.
        let keys: [(version: UInt32, key: SecureBytes)]
    }

    static func seal(_ contents: Contents, from sender: DeviceKeys, to recipient: DeviceProfile,
                     ephemeralKey: X25519PrivateKey) throws -> ShareGrant {
        guard ShareGrant.keyCounts.contains(contents.keys.count) else {
            throw CryptoVaultError(.invalidInput, "a grant carries 1 to \(ShareGrant.keyCounts.upperBound) key versions, not \(contents.keys.count)")
        }
        let wrapKey = try wrappingKey(shared: try ephemeralKey.sharedSecret(with: recipient.noisePublicKey),
                                      ephemeralPublicKey: ephemeralKey.publicKey, recipientPublicKey: recipient.noisePublicKey)
        let keys = try contents.keys.map { entry in
            let associatedData = associatedData(sourceVaultID: contents.sourceVaultID, compartmentID: contents.compartmentID,
                                                version: entry.version, role: contents.role,
                                                senderDeviceID: sender.profile.deviceID, recipientDeviceID: recipient.deviceID)
            return ShareGrant.WrappedKey(version: entry.version,
                                         sealedKey: try ChaChaPoly.sealSecret(entry.key, key: wrapKey, nonce: nonce(version: entry.version),
                                                                              authenticating: associatedData))
        }
        let unsigned = ShareGrant(role: contents.role, issuedAt: contents.issuedAt, sourceVaultID: contents.sourceVaultID,
                                  compartmentID: contents.compartmentID, senderDeviceID: sender.profile.deviceID,
                                  recipientDeviceID: recipient.deviceID, compartmentName: contents.compartmentName,
                                  ephemeralPublicKey: ephemeralKey.publicKey, keys: keys, signature: [])
        // The parser is the format's one definition: a grant this side could not parse is not sent.
        return try ShareGrant(parsing: unsigned.unsignedBytes() + (try sender.signingKey.signature(for: signatureContext + unsigned.unsignedBytes())))
    }

    /// Throws `.shareGrantBadSignature` unless the grant was signed by `signingPublicKey`.
    static func verifySignature(_ grant: ShareGrant, signingPublicKey: [UInt8]) throws {
        guard Ed25519.isValidSignature(grant.signature, for: signatureContext + grant.unsignedBytes(), publicKey: signingPublicKey) else {
            throw CryptoVaultError(.shareGrantBadSignature, "share grant: the signature is not the sending device's (forged or altered)")
        }
    }

    /// The compartment keys, by version. Throws `.shareGrantKeyRejected` if any fails to open.
    static func openKeys(_ grant: ShareGrant, recipient: DeviceKeys) throws -> [UInt32: SecureBytes] {
        let wrapKey: SecureBytes
        do {
            wrapKey = try wrappingKey(shared: try recipient.noiseKey.sharedSecret(with: grant.ephemeralPublicKey),
                                      ephemeralPublicKey: grant.ephemeralPublicKey, recipientPublicKey: recipient.profile.noisePublicKey)
        } catch let error as CryptoVaultError where error.code == .invalidPublicKey {
            throw CryptoVaultError(.shareGrantKeyRejected, "share grant: its ephemeral key is a low-order point")
        }
        var keys: [UInt32: SecureBytes] = [:]
        for wrapped in grant.keys {
            let associatedData = associatedData(sourceVaultID: grant.sourceVaultID, compartmentID: grant.compartmentID,
                                                version: wrapped.version, role: grant.role,
                                                senderDeviceID: grant.senderDeviceID, recipientDeviceID: grant.recipientDeviceID)
            do {
                keys[wrapped.version] = try ChaChaPoly.openSecret(wrapped.sealedKey, key: wrapKey, nonce: nonce(version: wrapped.version),
                                                                  authenticating: associatedData)
            } catch let error as CryptoVaultError where error.code == .authenticationFailure {
                throw CryptoVaultError(.shareGrantKeyRejected,
                                       "share grant: key version \(wrapped.version) fails authentication (wrapped for another device or binding)")
            }
        }
        return keys
    }

    private static func wrappingKey(shared: SecureBytes, ephemeralPublicKey: [UInt8], recipientPublicKey: [UInt8]) throws -> SecureBytes {
        try HKDF.deriveKey(inputKeyMaterial: shared, salt: ephemeralPublicKey + recipientPublicKey, info: keyInfo, outputCount: 32)
    }

    static func nonce(version: UInt32) -> [UInt8] {
        [UInt8](repeating: 0, count: 8) + ByteEncoding.bigEndian(version)
    }

    static func associatedData(sourceVaultID: VaultID, compartmentID: CompartmentID, version: UInt32, role: ShareRole,
                               senderDeviceID: DeviceID, recipientDeviceID: DeviceID) -> [UInt8] {
        associatedDataLabel + sourceVaultID.bytes + compartmentID.bytes + ByteEncoding.bigEndian(version) + [role.grantByte]
            + senderDeviceID.bytes + recipientDeviceID.bytes
    }
}
