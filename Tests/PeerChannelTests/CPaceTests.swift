import CryptoVault
@testable import PeerChannel
import Testing

/// CPace between two parties with fresh scalars: the same password gives the same key, anything
/// else a different one, and malformed messages are refused before any work with the password.
struct CPaceTests {
    static let sessionIdentifier = [UInt8](repeating: 0x5A, count: 16)

    static func exchange(initiatorPassword: String, responderPassword: String, initiatorSid: [UInt8] = sessionIdentifier,
                         responderSid: [UInt8] = sessionIdentifier) throws -> (initiator: CPaceSessionKeys, responder: CPaceSessionKeys) {
        let initiator = try CPaceInitiator(password: SecureBytes(copying: Array(initiatorPassword.utf8)), channelIdentifier: [1],
                                           sessionIdentifier: initiatorSid, associatedData: Array("A".utf8))
        let (reply, responderKeys) = try CPaceResponder.respond(
            to: initiator.message, password: SecureBytes(copying: Array(responderPassword.utf8)), channelIdentifier: [1],
            sessionIdentifier: responderSid, associatedData: Array("B".utf8))
        return (try initiator.receive(responderMessage: reply), responderKeys)
    }

    @Test func theSamePasswordGivesBothSidesTheSameKey() throws {
        let keys = try Self.exchange(initiatorPassword: "4817-2209-5531", responderPassword: "4817-2209-5531")
        #expect(keys.initiator.intermediateSessionKey == keys.responder.intermediateSessionKey)
        #expect(keys.initiator.intermediateSessionKey.count == 64)
        #expect(keys.initiator.sessionIdentifierOutput == keys.responder.sessionIdentifierOutput)
    }

    /// A wrong password is not detected by CPace itself (it has no confirmation step here): the keys
    /// simply differ, and the Noise handshake keyed by them fails (PairingTests).
    @Test func aDifferentPasswordOrSidGivesDifferentKeys() throws {
        let wrongCode = try Self.exchange(initiatorPassword: "4817-2209-5531", responderPassword: "4817-2209-5532")
        #expect(wrongCode.initiator.intermediateSessionKey != wrongCode.responder.intermediateSessionKey)
        let wrongSid = try Self.exchange(initiatorPassword: "same", responderPassword: "same",
                                         responderSid: [UInt8](repeating: 0x5B, count: 16))
        #expect(wrongSid.initiator.intermediateSessionKey != wrongSid.responder.intermediateSessionKey)
    }

    @Test func eachRunUsesFreshScalars() throws {
        let first = try Self.exchange(initiatorPassword: "p", responderPassword: "p")
        let second = try Self.exchange(initiatorPassword: "p", responderPassword: "p")
        #expect(first.initiator.intermediateSessionKey != second.initiator.intermediateSessionKey)
    }

    static let share = [UInt8](repeating: 0x11, count: 32)

    /// lv_cat(Y, AD) with a 32-byte Y, minimal LEB128 lengths and nothing after AD; anything else is
    /// refused as malformed.
    @Test(arguments: [
        [UInt8](),                                         // empty
        [32] + share,                                      // AD missing
        [31] + share.dropLast() + [0],                     // 31-byte share
        [33] + share + [0] + [0],                          // 33-byte share
        [32] + share + [0, 0xFF],                          // trailing byte
        [0xA0, 0x00] + share + [0],                        // share length 32 in two LEB128 bytes
        [32] + share + [0x80, 0x00],                       // AD length 0 in two LEB128 bytes
        [32] + share + [0x80, 0x80, 0x01],                 // a three-byte length
        [32] + share + [5, 1, 2],                          // AD shorter than announced
        [32] + share + [0x80],                             // ends inside a length
    ])
    func malformedMessagesAreRefused(_ message: [UInt8]) throws {
        #expect(throws: PeerChannelError(.malformedPairingMessage, "")) {
            try CPaceInitiator(password: SecureBytes(copying: [1]), channelIdentifier: [], sessionIdentifier: [], associatedData: [])
                .receive(responderMessage: message)
        }
        #expect(throws: PeerChannelError(.malformedPairingMessage, "")) {
            try CPaceResponder.respond(to: message, password: SecureBytes(copying: [1]), channelIdentifier: [],
                                       sessionIdentifier: [], associatedData: [])
        }
    }

    @Test func lengthPrefixesAreLEB128() throws {
        #expect(CPaceEncoding.lengthPrefix(0) == [0x00])
        #expect(CPaceEncoding.lengthPrefix(127) == [0x7F])
        #expect(CPaceEncoding.lengthPrefix(128) == [0x80, 0x01])
        #expect(CPaceEncoding.lengthPrefix(300) == [0xAC, 0x02])
        var reader = CPaceFieldReader(CPaceEncoding.prependLength([UInt8](repeating: 7, count: 300)))
        #expect(try reader.readField().count == 300)
        try reader.finish()
    }

    /// The generator string pads DSI and PRS to one SHA-512 block; a long password needs no padding.
    @Test func longPasswordsNeedNoPadding() throws {
        let password = try SecureBytes(copying: [UInt8](repeating: 0x61, count: 200))
        let string = try CPace.generatorString(password: password, channelIdentifier: [], sessionIdentifier: []).exposedCopy()
        #expect(string == CPaceEncoding.lengthValueConcatenation(CPace.domainSeparationIdentifier, [UInt8](repeating: 0x61, count: 200), [], [], []))
    }
}
