import CryptoVault
@testable import PeerChannel
import Testing

/// The confirmation each side sends under the transport keys, and every check its receiver makes.
struct PairingConfirmationTests {
    static let handshakeHash = [UInt8](repeating: 0x5A, count: 64)

    static func keys(_ name: String) throws -> DeviceKeys {
        try DeviceKeys(signingKey: Ed25519PrivateKey(), noiseKey: X25519PrivateKey(), name: name, createdAt: 1_780_000_000)
    }

    static func verify(_ bytes: [UInt8], from sender: DeviceKeys, hash: [UInt8] = handshakeHash,
                       staticKey: [UInt8]? = nil, cpaceID: [UInt8]? = nil) throws(PeerChannelError) -> DeviceProfile {
        try PairingConfirmation.verify(bytes, ownRole: .initiator, handshakeHash: hash,
                                       remoteStaticKey: staticKey ?? sender.noiseKey.publicKey,
                                       cpaceDeviceID: cpaceID ?? sender.profile.deviceID.bytes)
    }

    @Test func theLayoutIsTheSpecifiedOneAndVerifies() throws {
        let host = try Self.keys("desk")
        let bytes = try PairingConfirmation.encode(keys: host, role: .responder, handshakeHash: Self.handshakeHash)
        let label = Array("SealedVault PeerChannel pairing confirmation".utf8)
        let body = [UInt8(label.count)] + label + [1, 1, 1, 2, 16] + host.profile.deviceID.bytes + [32] + host.signingKey.publicKey
            + [32] + host.noiseKey.publicKey + [8, 0, 0, 0, 0, 0x6A, 0x18, 0xA5, 0x00] + [4] + Array("desk".utf8)
        #expect(Array(bytes.prefix(body.count)) == body)
        #expect(bytes.count == body.count + 1 + 64 && bytes[body.count] == 64)
        #expect(Ed25519.isValidSignature(Array(bytes.suffix(64)), for: body + Self.handshakeHash, publicKey: host.signingKey.publicKey))
        #expect(try Self.verify(bytes, from: host) == host.profile)
    }

    @Test func everyMismatchIsRefusedForItsReason() throws {
        let host = try Self.keys("desk"), other = try Self.keys("other")
        let bytes = try PairingConfirmation.encode(keys: host, role: .responder, handshakeHash: Self.handshakeHash)
        var badSignature = bytes
        badSignature[badSignature.count - 1] ^= 1
        let refusals: [(() throws(PeerChannelError) -> DeviceProfile, PeerChannelErrorCode)] = [
            ({ () throws(PeerChannelError) in try Self.verify(bytes, from: host, hash: [UInt8](repeating: 0, count: 64)) }, .peerIdentityMismatch),
            ({ () throws(PeerChannelError) in try Self.verify(bytes, from: host, staticKey: other.noiseKey.publicKey) }, .peerIdentityMismatch),
            ({ () throws(PeerChannelError) in try Self.verify(bytes, from: host, cpaceID: other.profile.deviceID.bytes) }, .peerIdentityMismatch),
            ({ () throws(PeerChannelError) in try Self.verify(badSignature, from: host) }, .peerIdentityMismatch),
            ({ () throws(PeerChannelError) in try Self.verify(bytes + [0], from: host) }, .malformedPairingMessage),
            ({ () throws(PeerChannelError) in try Self.verify(Array(bytes.dropLast()), from: host) }, .malformedPairingMessage),
            ({ () throws(PeerChannelError) in
                try Self.verify(PairingConfirmation.encode(keys: host, role: .initiator, handshakeHash: Self.handshakeHash), from: host) },
             .reflectedPairingMessage),
        ]
        for (attempt, code) in refusals {
            #expect(throws: PeerChannelError(code, "")) { try attempt() }
        }
    }

    @Test func aProfileWhoseIdIsNotDerivedFromItsKeysIsRefused() throws {
        let host = try Self.keys("desk")
        var bytes = try PairingConfirmation.encode(keys: host, role: .responder, handshakeHash: Self.handshakeHash)
        let idOffset = 1 + 44 + 2 + 2 + 1
        bytes[idOffset] ^= 1
        #expect(throws: PeerChannelError(.peerIdentityMismatch, "")) {
            try PairingConfirmation.verify(bytes, ownRole: .initiator, handshakeHash: Self.handshakeHash,
                                           remoteStaticKey: host.noiseKey.publicKey, cpaceDeviceID: Array(bytes[idOffset..<idOffset + 16]))
        }
    }
}
