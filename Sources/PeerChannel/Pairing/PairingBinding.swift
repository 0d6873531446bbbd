import CryptoVault

/// How pairing ties CPace to Noise (SECURITY.md §9): the CPace channel identifier and associated
/// data, the PSK of Noise_XXpsk3 derived from the CPace session key, and the Noise prologues.
///
/// The same device is the initiator of both CPace and Noise (the one that joins with the code);
/// `NoiseHandshake.Role` names the role in both.
public enum PairingBinding {
    /// The version of the pairing and channel protocols. It enters CI, both ADs and both prologues,
    /// so devices that speak different versions cannot complete either handshake.
    public static let protocolVersion: UInt8 = 1
    /// Device identifiers are opaque here (the device layer derives them from public keys).
    public static let deviceIdentifierSizes = 1...64
    /// The size of the sid the initiator draws at random for each pairing attempt.
    public static let sessionIdentifierSize = 16
    /// The size of the Noise PSK.
    public static let presharedKeySize = NoiseHandshake.presharedKeySize

    static let associatedDataLabel = Array("SealedVault PeerChannel".utf8)
    static let channelIdentifierLabel = Array("SealedVault PeerChannel pairing".utf8)
    static let presharedKeyLabel = Array("SealedVault PeerChannel Noise PSK v1".utf8)
    static let pairingPrologueLabel = Array("SealedVault PeerChannel pairing Noise".utf8)
    static let channelPrologueLabel = Array("SealedVault PeerChannel channel Noise".utf8)

    /// CPace's CI: lv_cat("SealedVault PeerChannel pairing", version).
    public static var channelIdentifier: [UInt8] {
        CPaceEncoding.lengthValueConcatenation(channelIdentifierLabel, [protocolVersion])
    }

    /// The prologue of the pairing handshake (Noise_XXpsk3): lv_cat(label, version).
    public static var pairingPrologue: [UInt8] {
        CPaceEncoding.lengthValueConcatenation(pairingPrologueLabel, [protocolVersion])
    }

    /// The prologue of the channel handshake (Noise_XX): lv_cat(label, version).
    public static var channelPrologue: [UInt8] {
        CPaceEncoding.lengthValueConcatenation(channelPrologueLabel, [protocolVersion])
    }

    /// A fresh sid for one pairing attempt (the initiator's to draw and send).
    public static func newSessionIdentifier() throws(PeerChannelError) -> [UInt8] {
        try PeerChannelError.wrappingPrimitives { try SecureRandom.bytes(sessionIdentifierSize) }
    }

    /// This side's CPace AD: lv_cat("SealedVault PeerChannel", version, role, device id), with role
    /// 0x01 for the initiator and 0x02 for the responder.
    public static func associatedData(role: NoiseHandshake.Role, deviceIdentifier: [UInt8]) throws(PeerChannelError) -> [UInt8] {
        guard deviceIdentifierSizes.contains(deviceIdentifier.count) else {
            throw PeerChannelError(.invalidConfiguration, "a device identifier is \(deviceIdentifierSizes) bytes, not \(deviceIdentifier.count)")
        }
        return CPaceEncoding.lengthValueConcatenation(associatedDataLabel, [protocolVersion], [role.byte], deviceIdentifier)
    }

    /// The peer's device identifier, from the AD it sent, after checking that the AD is one this side
    /// would produce for the other role: same label and version, the opposite role.
    public static func peerDeviceIdentifier(in associatedData: [UInt8], ownRole: NoiseHandshake.Role) throws(PeerChannelError) -> [UInt8] {
        var reader = CPaceFieldReader(associatedData)
        let label = try reader.readField(), version = try reader.readField()
        let role = try reader.readField(), deviceIdentifier = try reader.readField()
        try reader.finish()
        guard label == associatedDataLabel, version.count == 1, role.count == 1,
              deviceIdentifierSizes.contains(deviceIdentifier.count) else {
            throw PeerChannelError(.malformedPairingMessage, "the peer's associated data is not a PeerChannel pairing AD")
        }
        guard version[0] == protocolVersion else {
            throw PeerChannelError(.unsupportedProtocolVersion, "the peer speaks pairing version \(version[0]), this device \(protocolVersion)")
        }
        guard role[0] == ownRole.peer.byte else {
            throw PeerChannelError(role[0] == ownRole.byte ? .reflectedPairingMessage : .malformedPairingMessage,
                                   "the peer's associated data does not claim the \(ownRole.peer) role")
        }
        return deviceIdentifier
    }

    /// The Noise PSK: BLAKE2b-256 keyed with the 64-byte ISK over "SealedVault PeerChannel Noise PSK v1".
    /// A keyed hash under a uniformly random key is a PRF, so the PSK is as strong as ISK, and the
    /// label keeps it apart from any other key that might one day be derived from the same ISK.
    public static func presharedKey(from keys: CPaceSessionKeys) throws(PeerChannelError) -> SecureBytes {
        try PeerChannelError.wrappingPrimitives {
            var hasher = try BLAKE2b.Hasher(outputCount: presharedKeySize, key: keys.intermediateSessionKey)
            hasher.update(presharedKeyLabel)
            return try hasher.finalizeSecret()
        }
    }
}

extension NoiseHandshake.Role {
    /// The role byte of the pairing AD.
    var byte: UInt8 { self == .initiator ? 0x01 : 0x02 }

    var peer: NoiseHandshake.Role { self == .initiator ? .responder : .initiator }
}
