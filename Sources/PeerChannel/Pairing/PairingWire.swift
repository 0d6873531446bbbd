import CryptoVault

/// The framing-level pieces of the pairing protocol (SECURITY.md §9.7) that are not CPace, Noise or
/// the confirmation: the joiner's opening message, the refusal message and the host's final "stored".
enum PairingWire {
    /// No pairing message comes near this; anything longer is refused when its length arrives.
    public static let maximumFrameLength = 1024
    static let storedLabel = Array("SealedVault PeerChannel pairing stored".utf8)

    /// Message 1: sid (16 bytes) || MSGa.
    static func opening(sessionIdentifier: [UInt8], cpaceMessage: [UInt8]) -> [UInt8] {
        sessionIdentifier + cpaceMessage
    }

    static func parseOpening(_ message: [UInt8]) throws(PeerChannelError) -> (sessionIdentifier: [UInt8], cpaceMessage: [UInt8]) {
        let size = PairingBinding.sessionIdentifierSize
        guard message.count > size else {
            throw PeerChannelError(.malformedPairingMessage, "the opening message is \(message.count) bytes, too short for a sid and MSGa")
        }
        return (Array(message.prefix(size)), Array(message.dropFirst(size)))
    }

    /// The host's last message, under the transport keys: it has stored the pairing.
    static var stored: [UInt8] { CPaceEncoding.lengthValueConcatenation(storedLabel, [PairingBinding.protocolVersion]) }

    // MARK: Refusals

    /// A refusal is a one-byte message, which no other pairing message can be (the shortest, a Noise
    /// transport message, is 16 bytes). It is not authenticated: it only explains a failure the
    /// receiver would reach anyway, so a forged one can do no more than end an attempt.
    static let refusalReasons: [(byte: UInt8, code: PeerChannelErrorCode)] = [
        (0x01, .wrongPairingCode), (0x02, .pairingCodeExpired), (0x03, .pairingCodeExhausted),
        (0x04, .malformedPairingMessage), (0x05, .peerIdentityMismatch), (0x06, .unsupportedProtocolVersion),
    ]

    static func refusal(for code: PeerChannelErrorCode) -> [UInt8] {
        [refusalReasons.first { $0.code == code }?.byte ?? 0x04]
    }

    /// The next message from the peer; a refusal becomes the error it names.
    static func receive(from connection: TCPConnection) throws(PeerChannelError) -> [UInt8] {
        let message = try connection.readFrame()
        guard message.count == 1 else { return message }
        guard let code = refusalReasons.first(where: { $0.byte == message[0] })?.code else {
            throw PeerChannelError(.pairingRefused, "the other device refused the pairing")
        }
        throw PeerChannelError(code, "the other device refused the pairing: \(explanation(code))")
    }

    static func explanation(_ code: PeerChannelErrorCode) -> String {
        switch code {
        case .wrongPairingCode: return "the code is wrong"
        case .pairingCodeExpired: return "its code has expired"
        case .pairingCodeExhausted: return "its code is used up"
        case .peerIdentityMismatch: return "this device's identity did not check out"
        case .unsupportedProtocolVersion: return "it speaks another protocol version"
        default: return "a message was malformed"
        }
    }
}
