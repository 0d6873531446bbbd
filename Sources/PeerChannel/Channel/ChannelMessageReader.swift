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
    /// What the first record of a message announced.
    struct Header: Sendable {
        let type: ChannelMessage.MessageType
        let label: String
        let length: Int
        let bodyLength: Int
    }

    /// The types the peer may send this side.
    public let allowedTypes: Set<ChannelMessage.MessageType>
    public let recordLength: Int
    /// The header of the message in progress, and its body: allocated whole when the header arrives
    /// (its length is announced and bounded) and filled record by record, so that the finished body is
    /// handed over without another copy. `filled` bytes of it have arrived.
    private var header: Header?
    private var body: [UInt8] = []
    private var filled = 0
    private var failure: PeerChannelError?

    public init(allowedTypes: Set<ChannelMessage.MessageType>, recordLength: Int = ChannelMessage.recordLength) {
        self.allowedTypes = allowedTypes
        self.recordLength = recordLength
    }

    /// Whether a message is partly read.
    public var isInsideMessage: Bool { header != nil }

    /// Takes the next record; returns the message it completes, if any.
    public mutating func take(_ record: [UInt8]) throws(PeerChannelError) -> ChannelMessage? {
        try ending { (reader) throws(PeerChannelError) in try reader.consume(record) }
    }

    /// Takes the next record of `length` bytes, which `open` writes (decrypts) into the buffer it is
    /// given. A record that continues a message and has the length the cutting expects is written
    /// straight into the message's body; any other (a first record, or one of a wrong length) is
    /// opened into a buffer of its own and taken as by `take(_:)`, so that a record that is not
    /// authentic is refused as such before its length is judged.
    mutating func take(recordOfLength length: Int,
                       openedBy open: (UnsafeMutableRawBufferPointer) throws(PeerChannelError) -> Void) throws(PeerChannelError) -> ChannelMessage? {
        try ending { (reader) throws(PeerChannelError) in
            guard let current = reader.header, length == min(reader.recordLength, current.bodyLength - reader.filled) else {
                var record = [UInt8](repeating: 0, count: length)
                try record.withUnsafeMutableBytes { output in Result { () throws(PeerChannelError) in try open(output) } }.get()
                return try reader.consume(record)
            }
            let start = reader.filled
            try reader.body.withUnsafeMutableBytes { output in
                Result { () throws(PeerChannelError) in try open(UnsafeMutableRawBufferPointer(rebasing: output[start..<(start + length)])) }
            }.get()
            reader.filled += length
            return try reader.finishIfComplete(current)
        }
    }

    /// Runs `body`; its first failure ends the reader.
    private mutating func ending(_ body: (inout ChannelMessageReader) throws(PeerChannelError) -> ChannelMessage?) throws(PeerChannelError) -> ChannelMessage? {
        if let failure { throw failure }
        do throws(PeerChannelError) {
            return try body(&self)
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func consume(_ record: [UInt8]) throws(PeerChannelError) -> ChannelMessage? {
        let current: Header
        if let header {
            current = header
            try checkLength(of: record, remaining: current.bodyLength - filled)
            body.replaceSubrange(filled..<(filled + record.count), with: record)
            filled += record.count
        } else {
            current = try Self.header(ofFirst: record, allowedTypes: allowedTypes)
            try checkLength(of: record, remaining: current.length + current.bodyLength)
            // Every byte is written before the body is handed over; zeroing it first would cost a pass.
            body = [UInt8](unsafeUninitializedCapacity: current.bodyLength) { _, initialized in initialized = current.bodyLength }
            filled = record.count - current.length
            body.replaceSubrange(0..<filled, with: record[current.length...])
            header = current
        }
        return try finishIfComplete(current)
    }

    /// The message once its body is complete; the reader then waits for the next first record.
    private mutating func finishIfComplete(_ current: Header) throws(PeerChannelError) -> ChannelMessage? {
        guard filled == current.bodyLength else { return nil }
        let finished = body
        header = nil
        body = []
        filled = 0
        return try Self.message(current, body: finished)
    }

    /// A record carries exactly `recordLength` bytes, or all that remains if that is less.
    private func checkLength(of record: [UInt8], remaining: Int) throws(PeerChannelError) {
        let expected = min(recordLength, remaining)
        guard record.count == expected else {
            throw PeerChannelError(.malformedChannelMessage, "a record of \(record.count) bytes where the message layer expects \(expected)")
        }
    }

    /// Checks the header at the start of a first record.
    static func header(ofFirst record: [UInt8], allowedTypes: Set<ChannelMessage.MessageType>) throws(PeerChannelError) -> Header {
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
        let label = record[2..<(2 + labelLength)]
        guard label.allSatisfy(ChannelMessage.labelBytes.contains) else {
            throw PeerChannelError(.malformedChannelMessage, "a label holds a byte that is not printable ASCII")
        }
        let bodyLength = record[(2 + labelLength)..<headerLength].reduce(0) { $0 << 8 | Int($1) }
        guard bodyLength <= ChannelMessage.maximumBodyLength(type) else {
            throw PeerChannelError(.messageTooLarge, "a \(type) body of \(bodyLength) bytes exceeds \(ChannelMessage.maximumBodyLength(type))")
        }
        return Header(type: type, label: String(decoding: label, as: UTF8.self), length: headerLength, bodyLength: bodyLength)
    }

    /// The message of a header and its complete body.
    private static func message(_ header: Header, body: [UInt8]) throws(PeerChannelError) -> ChannelMessage {
        if header.type == .refusal, String(validating: body, as: UTF8.self) == nil {
            throw PeerChannelError(.malformedChannelMessage, "a refusal's text is not UTF-8")
        }
        return try ChannelMessage(header.type, label: header.label, body: body)
    }
}
