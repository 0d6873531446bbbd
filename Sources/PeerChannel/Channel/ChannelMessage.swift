/// One message of the channel's message layer (SECURITY.md §9.9), above Noise transport messages:
///
///     message = type (1) || label_length (1) || label || body_length (u32be) || body
///
/// | type | sent by | label | body |
/// |---|---|---|---|
/// | 0x01 request | initiator | the request kind, 1...64 bytes | at most `ChannelLimits.maximumBodyLength` |
/// | 0x02 answer | responder | empty | at most `ChannelLimits.maximumBodyLength` |
/// | 0x03 refusal | responder | a `PeerChannelErrorCode` name, 1...64 bytes | UTF-8 text, at most 1024 bytes |
/// | 0x04 ready | responder, once, first | empty | empty |
///
/// Label bytes are printable ASCII (0x21...0x7E). The encoded message is cut into records of exactly
/// `recordLength` bytes (the largest Noise transport plaintext, 65519), the last one 1...65519 bytes;
/// each record is one transport message. So every message has exactly one encoding, and a reader
/// knows from the first record (which always holds the whole header) how many bytes will follow.
public struct ChannelMessage: Sendable, Equatable {
    public enum MessageType: UInt8, Sendable {
        case request = 0x01, answer = 0x02, refusal = 0x03, ready = 0x04
    }

    /// The largest record: the largest Noise transport plaintext.
    public static let recordLength = NoiseTransport.maximumPlaintextLength
    /// type, label length and body length.
    static let fixedHeaderLength = 6
    /// The longest refusal text.
    public static let maximumRefusalTextLength = 1024
    static let labelBytes: ClosedRange<UInt8> = 0x21...0x7E

    public let type: MessageType
    /// The request kind of a request, the error code of a refusal, empty otherwise.
    public let label: String
    public let body: [UInt8]

    /// A message whose fields are checked against the table above (`.invalidConfiguration` if not).
    public init(_ type: MessageType, label: String = "", body: [UInt8] = []) throws(PeerChannelError) {
        guard Self.labelRule(type).contains(label.utf8.count), label.utf8.allSatisfy(Self.labelBytes.contains) else {
            throw PeerChannelError(.invalidConfiguration, "a \(type) label must be \(Self.labelRule(type)) printable ASCII bytes")
        }
        guard body.count <= Self.maximumBodyLength(type) else {
            throw PeerChannelError(.messageTooLarge, "a \(type) body of \(body.count) bytes exceeds \(Self.maximumBodyLength(type))")
        }
        self.type = type
        self.label = label
        self.body = body
    }

    public static func request(_ kind: String, body: [UInt8]) throws(PeerChannelError) -> ChannelMessage {
        try ChannelMessage(.request, label: kind, body: body)
    }

    /// A refusal for `error`; its text is cut to the limit at a character boundary.
    public static func refusal(_ error: PeerChannelError) -> ChannelMessage {
        var text = ""
        for character in error.message {
            guard text.utf8.count + String(character).utf8.count <= maximumRefusalTextLength else { break }
            text.append(character)
        }
        // Every code name is 1...64 printable ASCII bytes, so this cannot fail.
        return (try? ChannelMessage(.refusal, label: error.code.rawValue, body: Array(text.utf8)))
            ?? ChannelMessage(unchecked: .refusal, label: PeerChannelErrorCode.peerRefused.rawValue, body: [])
    }

    static let ready = ChannelMessage(unchecked: .ready, label: "", body: [])

    private init(unchecked type: MessageType, label: String, body: [UInt8]) {
        self.type = type
        self.label = label
        self.body = body
    }

    /// The label lengths each type allows.
    static func labelRule(_ type: MessageType) -> ClosedRange<Int> {
        switch type {
        case .request, .refusal: 1...ChannelLimits.maximumKindLength
        case .answer, .ready: 0...0
        }
    }

    static func maximumBodyLength(_ type: MessageType) -> Int {
        switch type {
        case .request, .answer: ChannelLimits.maximumBodyLength
        case .refusal: maximumRefusalTextLength
        case .ready: 0
        }
    }

    /// The encoded message cut into records of `recordLength` bytes (the last one shorter).
    public func records(recordLength: Int = Self.recordLength) -> [[UInt8]] {
        let encoded = encoding()
        return stride(from: 0, to: encoded.count, by: recordLength).map {
            Array(encoded[$0..<min($0 + recordLength, encoded.count)])
        }
    }

    /// type || label_length || label || u32be(body_length) || body.
    func encoding() -> [UInt8] {
        var bytes: [UInt8] = [type.rawValue, UInt8(label.utf8.count)]
        bytes.reserveCapacity(Self.fixedHeaderLength + label.utf8.count + body.count)
        bytes += label.utf8
        bytes += (0..<4).map { UInt8(truncatingIfNeeded: body.count >> (24 - 8 * $0)) }
        bytes += body
        return bytes
    }
}
