import CryptoVault
@testable import PeerChannel
import Testing

/// Runs a Noise session from known-answer data (fixed statics, ephemerals and PSK) and checks every
/// message: the sender must produce it byte for byte and the receiver must read back its payload.
/// Message i is the initiator's when i is even, through the handshake and after it.
struct KnownAnswerSession {
    struct Message {
        let payload: [UInt8]
        let bytes: [UInt8]
    }

    let pattern: NoisePattern
    let prologue: [UInt8]
    let initiatorStatic, initiatorEphemeral, responderStatic, responderEphemeral: [UInt8]
    let presharedKey: SecureBytes?

    init(protocolName: String, prologue: [UInt8], initiatorStatic: [UInt8], initiatorEphemeral: [UInt8],
         responderStatic: [UInt8], responderEphemeral: [UInt8], presharedKey: SecureBytes?) throws {
        pattern = try #require(NoisePattern.allCases.first { $0.protocolName == protocolName })
        self.prologue = prologue
        self.initiatorStatic = initiatorStatic
        self.initiatorEphemeral = initiatorEphemeral
        self.responderStatic = responderStatic
        self.responderEphemeral = responderEphemeral
        self.presharedKey = presharedKey
    }

    private func handshake(_ role: NoiseHandshake.Role) throws -> NoiseHandshake {
        let initiator = role == .initiator
        return try NoiseHandshake(
            pattern: pattern, role: role, prologue: prologue,
            staticKey: X25519PrivateKey(rawRepresentation: SecureBytes(copying: initiator ? initiatorStatic : responderStatic)),
            presharedKey: presharedKey,
            ephemeralKey: X25519PrivateKey(rawRepresentation: SecureBytes(copying: initiator ? initiatorEphemeral : responderEphemeral)))
    }

    /// Checks every message and the handshake hash; returns the two transports for more traffic.
    @discardableResult
    func run(_ messages: [Message], handshakeHash: [UInt8], label: String) throws -> (initiator: NoiseTransport, responder: NoiseTransport) {
        var initiator = try handshake(.initiator), responder = try handshake(.responder)
        let handshakeCount = pattern.messages.count
        for (index, message) in messages.prefix(handshakeCount).enumerated() {
            let written = index.isMultiple(of: 2) ? try initiator.writeMessage(payload: message.payload)
                                                  : try responder.writeMessage(payload: message.payload)
            #expect(written == message.bytes, "\(label): handshake message \(index)")
            let read = index.isMultiple(of: 2) ? try responder.readMessage(written) : try initiator.readMessage(written)
            #expect(read == message.payload, "\(label): handshake payload \(index)")
        }
        #expect(initiator.handshakeHash == handshakeHash, "\(label): initiator's handshake hash")
        #expect(responder.handshakeHash == handshakeHash, "\(label): responder's handshake hash")
        var initiatorChannel = try initiator.transport(), responderChannel = try responder.transport()
        #expect(initiatorChannel.remoteStaticKey == (try X25519PrivateKey(rawRepresentation: SecureBytes(copying: responderStatic)).publicKey))
        #expect(responderChannel.remoteStaticKey == (try X25519PrivateKey(rawRepresentation: SecureBytes(copying: initiatorStatic)).publicKey))
        for (index, message) in messages.enumerated().dropFirst(handshakeCount) {
            let sealed = index.isMultiple(of: 2) ? try initiatorChannel.seal(message.payload) : try responderChannel.seal(message.payload)
            #expect(sealed == message.bytes, "\(label): transport message \(index)")
            let opened = index.isMultiple(of: 2) ? try responderChannel.open(sealed) : try initiatorChannel.open(sealed)
            #expect(opened == message.payload, "\(label): transport payload \(index)")
        }
        return (initiatorChannel, responderChannel)
    }
}
