import CryptoVault
@testable import PeerChannel
import Testing

/// The established channel: implicit nonces make every message openable once, in order; size limits;
/// nonce exhaustion; rekeying at the same point on both sides.
struct NoiseTransportTests {
    static func channel(_ pattern: NoisePattern = .xx) throws -> (initiator: NoiseTransport, responder: NoiseTransport) {
        var pair = try NoiseHandshakeTests.pair(pattern)
        try pair.responder.readMessage(pair.initiator.writeMessage())
        try pair.initiator.readMessage(pair.responder.writeMessage())
        try pair.responder.readMessage(pair.initiator.writeMessage())
        return (try pair.initiator.transport(), try pair.responder.transport())
    }

    @Test func messagesOpenInOrderInBothDirections() throws {
        var (initiator, responder) = try Self.channel()
        for index in 0..<20 {
            #expect(try responder.open(initiator.seal([UInt8(index)])) == [UInt8(index)])
            #expect(try initiator.open(responder.seal([UInt8(index), 1])) == [UInt8(index), 1])
        }
    }

    @Test func aReplayedMessageIsRefusedAndClosesTheDirection() throws {
        var (initiator, responder) = try Self.channel()
        let first = try initiator.seal([1]), second = try initiator.seal([2])
        #expect(try responder.open(first) == [1])
        #expect(throws: PeerChannelError(.messageAuthenticationFailed, "")) { try responder.open(first) }
        // The direction stays closed: not even the genuine next message is accepted.
        #expect(throws: PeerChannelError(.messageAuthenticationFailed, "")) { try responder.open(second) }
        // The other direction is unaffected.
        #expect(try initiator.open(responder.seal([3])) == [3])
    }

    @Test func reorderedMessagesAreRefused() throws {
        var (initiator, responder) = try Self.channel()
        _ = try initiator.seal([1])
        let second = try initiator.seal([2])
        #expect(throws: PeerChannelError(.messageAuthenticationFailed, "")) { try responder.open(second) }
    }

    @Test func everyAlteredByteIsRefused() throws {
        let (sender, receiver) = try Self.channel()
        var sealer = sender
        let message = try sealer.seal(Array("transfer".utf8))
        for position in message.indices {
            var altered = message, attempt = receiver
            altered[position] ^= 0x01
            #expect(throws: PeerChannelError(.messageAuthenticationFailed, "")) { try attempt.open(altered) }
        }
        var truncated = receiver
        #expect(throws: PeerChannelError(.messageAuthenticationFailed, "")) { try truncated.open(Array(message.prefix(15))) }
    }

    @Test func sizesAreBoundedByTheNoiseLimit() throws {
        var (initiator, responder) = try Self.channel()
        let largest = try initiator.seal([UInt8](repeating: 0xAB, count: NoiseTransport.maximumPlaintextLength))
        #expect(largest.count == 65535)
        #expect(try responder.open(largest).count == 65519)
        #expect(throws: PeerChannelError(.messageTooLarge, "")) { try initiator.seal([UInt8](repeating: 0, count: 65520)) }
        #expect(throws: PeerChannelError(.messageTooLarge, "")) { try responder.open([UInt8](repeating: 0, count: 65536)) }
        // The refusal closed the receiving direction.
        let next = try initiator.seal([1])
        #expect(throws: PeerChannelError(.messageTooLarge, "")) { try responder.open(next) }
    }

    @Test func theReservedNonceIsNeverUsed() throws {
        var cipher = NoiseCipherState(key: try SecureBytes.random(count: 32))
        cipher.setNonce(NoiseCipherState.reservedNonce - 1)
        _ = try cipher.encrypt([1], associatedData: [])
        #expect(throws: PeerChannelError(.nonceExhausted, "")) { try cipher.encrypt([2], associatedData: []) }
        #expect(throws: PeerChannelError(.nonceExhausted, "")) { try cipher.decrypt([UInt8](repeating: 0, count: 17), associatedData: [], failure: .messageAuthenticationFailed) }
    }

    @Test func nonceEncodingIsFourZeroBytesThenLittleEndian() {
        #expect(NoiseCipherState.nonceBytes(0x0102_0304_0506_0708) == [0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1])
    }

    /// Rekey replaces the key with ENCRYPT(k, 2^64-1, "", zeros)[0..<32], keeping the nonce.
    @Test func rekeyDerivesTheSpecifiedKey() throws {
        let key = try SecureBytes.random(count: 32)
        var cipher = NoiseCipherState(key: key)
        cipher.setNonce(5)
        try cipher.rekey()
        #expect(cipher.nonce == 5)
        let expectedKey = Array(try ChaChaPoly.seal([UInt8](repeating: 0, count: 32), key: key,
                                                     nonce: NoiseCipherState.nonceBytes(.max)).prefix(32))
        var reference = NoiseCipherState(key: try SecureBytes(copying: expectedKey))
        reference.setNonce(5)
        #expect(try cipher.encrypt([42], associatedData: []) == reference.encrypt([42], associatedData: []))
    }

    /// Both sides rekey after every `interval` messages; a receiver that did not rekey cannot read
    /// the message after the first rekey, which shows the key really changed.
    @Test func bothSidesRekeyAtTheSameMessage() throws {
        let (initiator, responder) = try Self.channel()
        var sender = initiator.rekeying(every: 3), receiver = responder.rekeying(every: 3)
        var stale = responder.rekeying(every: .max)
        for index in 0..<10 {
            let message = try sender.seal([UInt8(index)])
            #expect(try receiver.open(message) == [UInt8(index)])
            if index < 3 {
                #expect(try stale.open(message) == [UInt8(index)])
            } else if index == 3 {
                #expect(throws: PeerChannelError(.messageAuthenticationFailed, "")) { try stale.open(message) }
            }
        }
    }
}
