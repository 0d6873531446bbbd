import CryptoVault
@testable import PeerChannel
import Testing

/// Pairing as two devices run it: CPace with the code and both device ids, then Noise_XXpsk3 with the
/// PSK derived from ISK. The right code pairs them with each other's static keys; a wrong code fails
/// the handshake; associated data that is not what the other role sends is refused.
struct PairingTests {
    struct Device {
        let identifier: [UInt8]
        let staticKey: X25519PrivateKey
    }

    static func device(_ name: String) throws -> Device {
        Device(identifier: Array(name.utf8), staticKey: try X25519PrivateKey())
    }

    /// The joiner (initiator) and the host (responder) pair; returns both transports and what each
    /// learned of the other's identity.
    static func pair(joiner: Device, host: Device, joinerCode: String, hostCode: String)
        throws -> (joiner: NoiseTransport, host: NoiseTransport, joinerSawHost: [UInt8], hostSawJoiner: [UInt8]) {
        let sid = try PairingBinding.newSessionIdentifier()
        let cpaceInitiator = try CPaceInitiator(
            password: SecureBytes(copying: Array(joinerCode.utf8)), channelIdentifier: PairingBinding.channelIdentifier,
            sessionIdentifier: sid, associatedData: PairingBinding.associatedData(role: .initiator, deviceIdentifier: joiner.identifier))
        let (reply, hostKeys) = try CPaceResponder.respond(
            to: cpaceInitiator.message, password: SecureBytes(copying: Array(hostCode.utf8)),
            channelIdentifier: PairingBinding.channelIdentifier, sessionIdentifier: sid,
            associatedData: PairingBinding.associatedData(role: .responder, deviceIdentifier: host.identifier))
        let joinerKeys = try cpaceInitiator.receive(responderMessage: reply)
        let hostSawJoiner = try PairingBinding.peerDeviceIdentifier(in: hostKeys.peerAssociatedData, ownRole: .responder)
        let joinerSawHost = try PairingBinding.peerDeviceIdentifier(in: joinerKeys.peerAssociatedData, ownRole: .initiator)

        var joinerNoise = try NoiseHandshake(pattern: .xxpsk3, role: .initiator, prologue: PairingBinding.pairingPrologue,
                                             staticKey: joiner.staticKey, presharedKey: PairingBinding.presharedKey(from: joinerKeys))
        var hostNoise = try NoiseHandshake(pattern: .xxpsk3, role: .responder, prologue: PairingBinding.pairingPrologue,
                                           staticKey: host.staticKey, presharedKey: PairingBinding.presharedKey(from: hostKeys))
        try hostNoise.readMessage(joinerNoise.writeMessage())
        try joinerNoise.readMessage(hostNoise.writeMessage())
        try hostNoise.readMessage(joinerNoise.writeMessage())
        return (try joinerNoise.transport(), try hostNoise.transport(), joinerSawHost, hostSawJoiner)
    }

    @Test func theRightCodePairsTheTwoDevices() throws {
        let laptop = try Self.device("laptop-id"), desk = try Self.device("desk-id")
        var paired = try Self.pair(joiner: laptop, host: desk, joinerCode: "4817-2209-5531", hostCode: "4817-2209-5531")
        #expect(paired.joinerSawHost == desk.identifier)
        #expect(paired.hostSawJoiner == laptop.identifier)
        #expect(paired.joiner.remoteStaticKey == desk.staticKey.publicKey)
        #expect(paired.host.remoteStaticKey == laptop.staticKey.publicKey)
        #expect(try paired.host.open(paired.joiner.seal([1, 2, 3])) == [1, 2, 3])
    }

    /// Neither CPace nor the first two Noise messages reveal a wrong code; the host refuses the third.
    @Test func aWrongCodeFailsTheHandshake() throws {
        let laptop = try Self.device("laptop-id"), desk = try Self.device("desk-id")
        #expect(throws: PeerChannelError(.handshakeAuthenticationFailed, "")) {
            try Self.pair(joiner: laptop, host: desk, joinerCode: "4817-2209-5531", hostCode: "4817-2209-5532")
        }
    }

    @Test func thePSKIsTheSpecifiedKeyedHashOfISK() throws {
        let isk = try SecureBytes.random(count: 64)
        let keys = CPaceSessionKeys(intermediateSessionKey: isk, peerAssociatedData: [], sessionIdentifierOutput: [])
        let expected = try BLAKE2b.hash(Array("SealedVault PeerChannel Noise PSK v1".utf8), outputCount: 32, key: isk)
        #expect(try PairingBinding.presharedKey(from: keys).exposedCopy() == expected)
    }

    @Test func associatedDataLayout() throws {
        let data = try PairingBinding.associatedData(role: .responder, deviceIdentifier: [0xAA, 0xBB])
        #expect(data == [23] + Array("SealedVault PeerChannel".utf8) + [1, 1, 1, 2, 2, 0xAA, 0xBB])
        #expect(PairingBinding.channelIdentifier == [31] + Array("SealedVault PeerChannel pairing".utf8) + [1, 1])
    }

    @Test func thePeersAssociatedDataMustBeTheOtherRolesOfThisVersion() throws {
        let label = Array("SealedVault PeerChannel".utf8)
        func data(_ version: UInt8, _ role: UInt8, _ id: [UInt8] = [7]) -> [UInt8] {
            CPaceEncoding.lengthValueConcatenation(label, [version], [role], id)
        }
        #expect(try PairingBinding.peerDeviceIdentifier(in: data(1, 2), ownRole: .initiator) == [7])
        let refusals: [([UInt8], PeerChannelErrorCode)] = [
            (data(2, 2), .unsupportedProtocolVersion),
            (data(1, 1), .reflectedPairingMessage),
            (data(1, 3), .malformedPairingMessage),
            (data(1, 2, []), .malformedPairingMessage),
            (data(1, 2, [UInt8](repeating: 1, count: 65)), .malformedPairingMessage),
            (data(1, 2) + [0], .malformedPairingMessage),
            (CPaceEncoding.lengthValueConcatenation(Array("Other".utf8), [1], [2], [7]), .malformedPairingMessage),
        ]
        for (bytes, code) in refusals {
            #expect(throws: PeerChannelError(code, "")) { try PairingBinding.peerDeviceIdentifier(in: bytes, ownRole: .initiator) }
        }
    }

    @Test func deviceIdentifiersMustFitTheirBounds() {
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) { try PairingBinding.associatedData(role: .initiator, deviceIdentifier: []) }
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) {
            try PairingBinding.associatedData(role: .initiator, deviceIdentifier: [UInt8](repeating: 0, count: 65))
        }
    }
}
