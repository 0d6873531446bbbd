/// Reassembles `ChannelMessage`s from records (transport plaintexts), strictly and within bounds.
///
/// Everything is checked as early as it can be: the whole header is checked on the first record
/// (type allowed from this sender, label length and bytes, body length against the type's limit)
/// before any buffer is reserved, and each later record must have exactly the length the canonical
/// cutting gives (`recordLength`, or what remains). The buffer never holds more than the header and
/// the announced body, which is bounded by the type's limit. Any refusal is
/// `.malformedChannelMessage` (or `.messageTooLarge` for a body over its limit) and ends the reader:
/// after a bad record the channel must close.
public struct ChannelMessageReader: Sendable {
    /// The types the peer may send this side.
    public let allowedTypes: Set<ChannelMessage.MessageType>
    public let recordLength: Int
    private var pending: [UInt8] = []
    /// The total encoded length of the message in progress, once its header is known.
    private var expectedLength: Int?
    private var failure: PeerChannelError?

    public init(allowedTypes: Set<ChannelMessage.MessageType>, recordLength: Int = ChannelMessage.recordLength) {
        self.allowedTypes = allowedTypes
        self.recordLength = recordLength
    }

    /// Whether a message is partly read.
    public var isInsideMessage: Bool { expectedLength != nil }

    /// Takes the next record; returns the message it completes, if any.
    public mutating func take(_ record: [UInt8]) throws(PeerChannelError) -> ChannelMessage? {
        if let failure { throw failure }
        do throws(PeerChannelError) {
            return try consume(record)
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func consume(_ record: [UInt8]) throws(PeerChannelError) -> ChannelMessage? {
        if let expectedLength {
            try checkLength(of: record, remaining: expectedLength - pending.count)
            pending += record
        } else {
            let total = try Self.encodedLength(ofFirst: record, allowedTypes: allowedTypes)
            try checkLength(of: record, remaining: total)
            pending = []
            pending.reserveCapacity(total)
            pending += record
            expectedLength = total
        }
        guard pending.count == expectedLength else { return nil }
        let message = try Self.decode(pending)
        pending = []
        expectedLength = nil
        return message
    }

    /// A record carries exactly `recordLength` bytes, or all that remains if that is less.
    private func checkLength(of record: [UInt8], remaining: Int) throws(PeerChannelError) {
        let expected = min(recordLength, remaining)
        guard record.count == expected else {
            throw PeerChannelError(.malformedChannelMessage, "a record of \(record.count) bytes where the message layer expects \(expected)")
        }
    }

    /// Checks the header at the start of a first record and returns the message's encoded length.
    static func encodedLength(ofFirst record: [UInt8], allowedTypes: Set<ChannelMessage.MessageType>) throws(PeerChannelError) -> Int {
        guard record.count >= ChannelMessage.fixedHeaderLength else {
            throw PeerChannelError(.malformedChannelMessage, "a first record of \(record.count) bytes cannot hold a header")
        }
        guard let type = ChannelMessage.MessageType(rawValue: record[0]), allowedTypes.contains(type) else {
            throw PeerChannelError(.malformedChannelMessage, "message type 0x\(String(record[0], radix: 16)) is unknown or not the peer's to send")
        }
        let labelLength = Int(record[1])
        guard ChannelMessage.labelRule(type).contains(labelLength) else {
            throw PeerChannelError(.malformedChannelMessage, "a \(type) label of \(labelLength) bytes; it must be \(ChannelMessage.labelRule(type))")
        }
        let headerLength = ChannelMessage.fixedHeaderLength + labelLength
        guard record.count >= headerLength else {
            throw PeerChannelError(.malformedChannelMessage, "the first record ends inside the header")
        }
        guard record[2..<(2 + labelLength)].allSatisfy(ChannelMessage.labelBytes.contains) else {
            throw PeerChannelError(.malformedChannelMessage, "a label holds a byte that is not printable ASCII")
        }
        let bodyLength = record[(2 + labelLength)..<headerLength].reduce(0) { $0 << 8 | Int($1) }
        guard bodyLength <= ChannelMessage.maximumBodyLength(type) else {
            throw PeerChannelError(.messageTooLarge, "a \(type) body of \(bodyLength) bytes exceeds \(ChannelMessage.maximumBodyLength(type))")
        }
        return headerLength + bodyLength
    }

    /// The message of a complete encoding whose header `encodedLength` accepted.
    private static func decode(_ encoded: [UInt8]) throws(PeerChannelError) -> ChannelMessage {
        let labelLength = Int(encoded[1])
        let label = String(decoding: encoded[2..<(2 + labelLength)], as: UTF8.self)
        let body = Array(encoded[(ChannelMessage.fixedHeaderLength + labelLength)...])
        let type = ChannelMessage.MessageType(rawValue: encoded[0])!
        if type == .refusal, String(validating: body, as: UTF8.self) == nil {
            throw PeerChannelError(.malformedChannelMessage, "a refusal's text is not UTF-8")
        }
        return try ChannelMessage(type, label: label, body: body)
    }
}
