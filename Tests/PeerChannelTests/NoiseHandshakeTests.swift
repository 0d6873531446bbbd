import CryptoVault
@testable import PeerChannel
import Testing

/// Noise handshakes between two devices with fresh keys: what completes, and every way a handshake
/// must fail, each with its reason.
struct NoiseHandshakeTests {
    struct Pair {
        var initiator: NoiseHandshake
        var responder: NoiseHandshake
        let initiatorStatic: X25519PrivateKey
        let responderStatic: X25519PrivateKey
    }

    static func pair(_ pattern: NoisePattern, initiatorPSK: SecureBytes? = nil, responderPSK: SecureBytes? = nil) throws -> Pair {
        let initiatorStatic = try X25519PrivateKey(), responderStatic = try X25519PrivateKey()
        let sharedPSK = pattern.usesPresharedKey ? try SecureBytes.random(count: 32) : nil
        return Pair(
            initiator: try NoiseHandshake(pattern: pattern, role: .initiator, prologue: PairingBinding.channelPrologue,
                                          staticKey: initiatorStatic, presharedKey: initiatorPSK ?? sharedPSK),
            responder: try NoiseHandshake(pattern: pattern, role: .responder, prologue: PairingBinding.channelPrologue,
                                          staticKey: responderStatic, presharedKey: responderPSK ?? sharedPSK),
            initiatorStatic: initiatorStatic, responderStatic: responderStatic)
    }

    @Test(arguments: NoisePattern.allCases)
    func bothSidesCompleteWithEachOthersStaticKeys(pattern: NoisePattern) throws {
        var pair = try Self.pair(pattern)
        #expect(try pair.responder.readMessage(pair.initiator.writeMessage(payload: [1])) == [1])
        #expect(try pair.initiator.readMessage(pair.responder.writeMessage(payload: [2])) == [2])
        #expect(try pair.responder.readMessage(pair.initiator.writeMessage(payload: [3])) == [3])
        var initiator = try pair.initiator.transport(), responder = try pair.responder.transport()
        #expect(initiator.remoteStaticKey == pair.responderStatic.publicKey)
        #expect(responder.remoteStaticKey == pair.initiatorStatic.publicKey)
        #expect(initiator.handshakeHash == responder.handshakeHash)
        #expect(try responder.open(initiator.seal(Array("hello".utf8))) == Array("hello".utf8))
        #expect(try initiator.open(responder.seal(Array("hi".utf8))) == Array("hi".utf8))
    }

    // MARK: Altered messages

    /// Every single-byte change to the responder's message (its ephemeral key, its encrypted static
    /// key, the payload's tag) is caught by the initiator.
    @Test(arguments: NoisePattern.allCases)
    func everyAlteredByteOfTheSecondMessageIsRefused(pattern: NoisePattern) throws {
        var pair = try Self.pair(pattern)
        try pair.responder.readMessage(pair.initiator.writeMessage())
        let message = try pair.responder.writeMessage()
        for position in message.indices {
            var altered = message
            altered[position] ^= 0x01
            var attempt = pair.initiator
            #expect(throws: PeerChannelError(.handshakeAuthenticationFailed, "")) { try attempt.readMessage(altered) }
        }
        #expect(try pair.initiator.readMessage(message) == [])
    }

    @Test(arguments: NoisePattern.allCases)
    func everyAlteredByteOfTheThirdMessageIsRefused(pattern: NoisePattern) throws {
        var pair = try Self.pair(pattern)
        try pair.responder.readMessage(pair.initiator.writeMessage())
        try pair.initiator.readMessage(pair.responder.writeMessage())
        let message = try pair.initiator.writeMessage(payload: [7])
        for position in message.indices {
            var altered = message
            altered[position] ^= 0x80
            var attempt = pair.responder
            #expect(throws: PeerChannelError(.handshakeAuthenticationFailed, "")) { try attempt.readMessage(altered) }
        }
        #expect(try pair.responder.readMessage(message) == [7])
    }

    /// In XX the first message is a bare ephemeral key that the responder cannot check, but it
    /// enters the handshake hash, so the initiator refuses the reply built on the altered one.
    @Test func anAlteredFirstMessageIsCaughtByTheInitiator() throws {
        let original = try Self.pair(.xx)
        var initiator = original.initiator
        let message = try initiator.writeMessage()
        for position in message.indices {
            var altered = message, responder = original.responder, attempt = initiator
            altered[position] ^= 0x01
            _ = try responder.readMessage(altered)
            let reply = try responder.writeMessage()
            #expect(throws: PeerChannelError(.handshakeAuthenticationFailed, "")) { try attempt.readMessage(reply) }
        }
    }

    @Test func aTruncatedMessageIsRefused() throws {
        var pair = try Self.pair(.xx)
        try pair.responder.readMessage(pair.initiator.writeMessage())
        let message = try pair.responder.writeMessage()
        var short = pair.initiator
        #expect(throws: PeerChannelError(.malformedHandshakeMessage, "")) { try short.readMessage(Array(message.prefix(31))) }
        var cutTag = pair.initiator
        #expect(throws: PeerChannelError(.handshakeAuthenticationFailed, "")) { try cutTag.readMessage(Array(message.dropLast())) }
    }

    /// After a refused message the handshake state is dead: the genuine message cannot be retried on it.
    @Test func aFailedReadEndsTheHandshake() throws {
        var pair = try Self.pair(.xx)
        try pair.responder.readMessage(pair.initiator.writeMessage())
        let message = try pair.responder.writeMessage()
        var altered = message
        altered[40] ^= 0x01
        #expect(throws: PeerChannelError(.handshakeAuthenticationFailed, "")) { try pair.initiator.readMessage(altered) }
        #expect(throws: PeerChannelError(.handshakeOutOfOrder, "")) { try pair.initiator.readMessage(message) }
        #expect(throws: PeerChannelError(.handshakeOutOfOrder, "")) { try pair.initiator.transport() }
    }

    // MARK: Keys

    /// psk3 mixes the PSK after the initiator's static key, so the responder learns of a wrong PSK
    /// when it reads the third message; the initiator never gets a channel reply.
    @Test func aWrongPSKFailsTheThirdMessage() throws {
        var pair = try Self.pair(.xxpsk3, initiatorPSK: SecureBytes.random(count: 32), responderPSK: SecureBytes.random(count: 32))
        try pair.responder.readMessage(pair.initiator.writeMessage())
        try pair.initiator.readMessage(pair.responder.writeMessage())
        let third = try pair.initiator.writeMessage()
        #expect(throws: PeerChannelError(.handshakeAuthenticationFailed, "")) { try pair.responder.readMessage(third) }
        #expect(throws: PeerChannelError(.handshakeOutOfOrder, "")) { try pair.responder.transport() }
    }

    /// A different prologue (another protocol version) makes the handshake hashes differ, so the
    /// first encrypted payload fails.
    @Test func aDifferentPrologueFailsTheHandshake() throws {
        let staticKey = try X25519PrivateKey()
        var initiator = try NoiseHandshake(pattern: .xx, role: .initiator, prologue: [1], staticKey: staticKey)
        var responder = try NoiseHandshake(pattern: .xx, role: .responder, prologue: [2], staticKey: X25519PrivateKey())
        try responder.readMessage(initiator.writeMessage())
        let reply = try responder.writeMessage()
        #expect(throws: PeerChannelError(.handshakeAuthenticationFailed, "")) { try initiator.readMessage(reply) }
    }

    /// An all-zero ephemeral key is a low-order point: DH with it gives zeros an attacker knows.
    @Test(arguments: NoisePattern.allCases)
    func aLowOrderEphemeralKeyIsRefused(pattern: NoisePattern) throws {
        var pair = try Self.pair(pattern)
        var first = try pair.initiator.writeMessage()
        first.replaceSubrange(0..<32, with: [UInt8](repeating: 0, count: 32))
        if pattern.usesPresharedKey {
            // The payload was encrypted under a key mixed from the genuine ephemeral key.
            #expect(throws: PeerChannelError(.handshakeAuthenticationFailed, "")) { try pair.responder.readMessage(first) }
            return
        }
        _ = try pair.responder.readMessage(first)
        #expect(throws: PeerChannelError(.invalidPublicKey, "")) { try pair.responder.writeMessage() }
    }

    @Test func presharedKeysMustFitThePattern() throws {
        let staticKey = try X25519PrivateKey()
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) {
            try NoiseHandshake(pattern: .xxpsk3, role: .initiator, prologue: [], staticKey: staticKey)
        }
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) {
            try NoiseHandshake(pattern: .xx, role: .initiator, prologue: [], staticKey: staticKey, presharedKey: SecureBytes.random(count: 32))
        }
        #expect(throws: PeerChannelError(.invalidConfiguration, "")) {
            try NoiseHandshake(pattern: .xxpsk3, role: .initiator, prologue: [], staticKey: staticKey, presharedKey: SecureBytes.random(count: 31))
        }
    }

    // MARK: Order and size

    @Test func stepsOutOfTurnAreRefused() throws {
        var pair = try Self.pair(.xx)
        #expect(throws: PeerChannelError(.handshakeOutOfOrder, "")) { try pair.initiator.readMessage([]) }
        #expect(throws: PeerChannelError(.handshakeOutOfOrder, "")) { try pair.responder.writeMessage() }
        #expect(throws: PeerChannelError(.handshakeOutOfOrder, "")) { try pair.initiator.transport() }
        try pair.responder.readMessage(pair.initiator.writeMessage())
        try pair.initiator.readMessage(pair.responder.writeMessage())
        try pair.responder.readMessage(pair.initiator.writeMessage())
        #expect(throws: PeerChannelError(.handshakeOutOfOrder, "")) { try pair.initiator.writeMessage() }
        #expect(throws: PeerChannelError(.handshakeOutOfOrder, "")) { try pair.responder.readMessage([]) }
    }

    /// A payload that would make the message exceed 65535 bytes is refused without changing the
    /// state, so the same handshake then goes on with a payload that fits.
    @Test(arguments: NoisePattern.allCases)
    func anOversizedHandshakeMessageIsRefusedBeforeItIsSent(pattern: NoisePattern) throws {
        var pair = try Self.pair(pattern)
        try pair.responder.readMessage(pair.initiator.writeMessage())
        // Message 2 carries e (32), the encrypted s (48) and the payload's tag (16).
        let largest = NoiseHandshake.maximumMessageLength - 32 - 48 - 16
        var probe = pair.responder
        #expect(try probe.writeMessage(payload: [UInt8](repeating: 0, count: largest)).count == 65535)
        #expect(throws: PeerChannelError(.messageTooLarge, "")) {
            try pair.responder.writeMessage(payload: [UInt8](repeating: 0, count: largest + 1))
        }
        #expect(try pair.initiator.readMessage(pair.responder.writeMessage(payload: [9])) == [9])
    }

    @Test func anOversizedIncomingHandshakeMessageIsRefused() throws {
        var pair = try Self.pair(.xx)
        #expect(throws: PeerChannelError(.messageTooLarge, "")) { try pair.responder.readMessage([UInt8](repeating: 0, count: 65536)) }
    }
}
