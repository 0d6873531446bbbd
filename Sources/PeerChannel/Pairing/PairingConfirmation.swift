import CryptoVault

/// The first transport message each side sends once the pairing handshake is done (SECURITY.md §9.7):
/// its device profile, signed with its Ed25519 key over the handshake hash.
///
///     body         = lv_cat("SealedVault PeerChannel pairing confirmation", version, role,
///                           device_id, signing_public_key, noise_public_key, u64be(created_at), name)
///     confirmation = body || prepend_len(Ed25519-Sign(signing key, body || handshake_hash))
///
/// It arrives under the transport keys of Noise_XXpsk3, so reading it at all proves the sender held
/// the code (the PSK) and the Noise static key the handshake delivered. The checks then tie the rest
/// to those: the Noise key in the profile must be that static key, the device id must be the one
/// derived from the keys and the one CPace's AD carried, and the signature over this handshake's hash
/// proves the sender holds the signing key it names (it cannot pin someone else's) and cannot be
/// replayed into another pairing.
enum PairingConfirmation {
    static let label = Array("SealedVault PeerChannel pairing confirmation".utf8)

    static func encode(keys: DeviceKeys, role: NoiseHandshake.Role, handshakeHash: [UInt8]) throws(PeerChannelError) -> [UInt8] {
        let body = self.body(keys.profile, role: role)
        let signature = try PeerChannelError.wrappingPrimitives { try keys.signingKey.signature(for: body + handshakeHash) }
        return body + CPaceEncoding.lengthValueConcatenation(signature)
    }

    private static func body(_ profile: DeviceProfile, role: NoiseHandshake.Role) -> [UInt8] {
        CPaceEncoding.lengthValueConcatenation(label, [PairingBinding.protocolVersion], [role.byte], profile.deviceID.bytes,
                                               profile.signingPublicKey, profile.noisePublicKey,
                                               bigEndian(UInt64(profile.createdAt)), Array(profile.name.utf8))
    }

    /// The peer's profile, once its confirmation has passed every check, in this order: the layout
    /// (`.malformedPairingMessage`), the version (`.unsupportedProtocolVersion`), the role
    /// (`.reflectedPairingMessage` for this side's own), then the identity checks
    /// (`.peerIdentityMismatch`).
    static func verify(_ bytes: [UInt8], ownRole: NoiseHandshake.Role, handshakeHash: [UInt8], remoteStaticKey: [UInt8],
                       cpaceDeviceID: [UInt8]) throws(PeerChannelError) -> DeviceProfile {
        var reader = CPaceFieldReader(bytes)
        var fields: [[UInt8]] = []
        for _ in 0..<9 { fields.append(try reader.readField()) }
        try reader.finish()
        let profile = try parseProfile(fields, ownRole: ownRole)
        guard constantTimeEquals(profile.noisePublicKey, remoteStaticKey) else {
            throw PeerChannelError(.peerIdentityMismatch, "the peer's profile names a Noise key other than the one it used in the handshake")
        }
        guard constantTimeEquals(profile.deviceID.bytes, cpaceDeviceID) else {
            throw PeerChannelError(.peerIdentityMismatch, "the peer's profile names a device id other than the one it sent in CPace")
        }
        // The parse is strict (minimal prefixes, nothing trailing), so re-encoding gives the bytes received.
        let signed = body(profile, role: ownRole.peer) + handshakeHash
        guard Ed25519.isValidSignature(fields[8], for: signed, publicKey: profile.signingPublicKey) else {
            throw PeerChannelError(.peerIdentityMismatch, "the peer's confirmation is not signed by the signing key it names")
        }
        return profile
    }

    private static func parseProfile(_ fields: [[UInt8]], ownRole: NoiseHandshake.Role) throws(PeerChannelError) -> DeviceProfile {
        guard fields[0] == label, fields[1].count == 1, fields[2].count == 1, fields[3].count == DeviceProfile.identifierSize,
              fields[4].count == DeviceProfile.publicKeySize, fields[5].count == DeviceProfile.publicKeySize,
              fields[6].count == 8, fields[8].count == Ed25519.signatureSize else {
            throw PeerChannelError(.malformedPairingMessage, "the peer's confirmation is not a PeerChannel pairing confirmation")
        }
        guard fields[1][0] == PairingBinding.protocolVersion else {
            throw PeerChannelError(.unsupportedProtocolVersion, "the peer's confirmation is version \(fields[1][0])")
        }
        guard fields[2][0] == ownRole.peer.byte else {
            throw PeerChannelError(fields[2][0] == ownRole.byte ? .reflectedPairingMessage : .malformedPairingMessage,
                                   "the peer's confirmation does not claim the \(ownRole.peer) role")
        }
        let createdAt = fields[6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard let name = String(validating: fields[7], as: UTF8.self), (try? DeviceProfile.validate(name: name)) != nil,
              let created = Int64(exactly: createdAt) else {
            throw PeerChannelError(.malformedPairingMessage, "the peer's confirmation has an invalid name or time")
        }
        // Sizes, name and time are valid, so the only refusal left is an id not derived from the keys.
        guard let claimed = try? DeviceID(bytes: fields[3]),
              let profile = try? DeviceProfile(signingPublicKey: fields[4], noisePublicKey: fields[5], name: name,
                                               createdAt: created, deviceID: claimed) else {
            throw PeerChannelError(.peerIdentityMismatch, "the peer's device id is not the one derived from its public keys")
        }
        return profile
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }
}
