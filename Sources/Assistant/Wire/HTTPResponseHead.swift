/// The status line and fields of an HTTP/1.1 response (RFC 9112 §4-§6), parsed strictly: what is
/// not in the grammar is refused with its reason, so that a hostile or broken server can neither
/// make us read an unbounded head nor disagree with us about where the body ends.
///
///     head         = status-line *( field-line CRLF ) CRLF
///     status-line  = ( "HTTP/1.1" / "HTTP/1.0" ) SP 3DIGIT SP *( VCHAR / SP / HTAB / obs-text ) CRLF
///     field-line   = field-name ":" *( SP / HTAB ) field-value *( SP / HTAB )
///     field-name   = 1*tchar (kept in lower case)
///     field-value  = *( VCHAR / SP / HTAB / obs-text )
///
/// Refused as well: a bare LF or CR, obs-fold, whitespace before the colon, more than
/// `maximumFields` fields, a head over `maximumBytes`, a status outside 100-599, two Content-Length
/// fields, a Content-Length with anything but 1 to 15 digits, a Transfer-Encoding other than exactly
/// `chunked`, and both Transfer-Encoding and Content-Length (the framing would be ambiguous).
public struct HTTPResponseHead: Sendable, Equatable {
    public static let maximumBytes = 16 * 1024
    public static let maximumFields = 64

    /// How the body after the head is delimited.
    public enum Framing: Sendable, Equatable {
        case length(Int)
        case chunked
        /// Until the server closes the connection (HTTP/1.0 style).
        case untilClose
    }

    public let status: Int
    public let fields: [(name: String, value: String)]
    public let framing: Framing

    public static func == (lhs: HTTPResponseHead, rhs: HTTPResponseHead) -> Bool {
        lhs.status == rhs.status && lhs.framing == rhs.framing && lhs.fields.map(\.name) == rhs.fields.map(\.name)
            && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    /// The first value of the field `name` (lower case), if any.
    public func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// Parses `head`, its bytes up to and including the blank line.
    public init(parsing head: [UInt8]) throws(AssistantError) {
        guard head.count <= Self.maximumBytes else { throw AssistantError(.responseTooLarge, "the response head is over \(Self.maximumBytes) bytes") }
        var lines = try Self.lines(of: head)
        guard lines.count >= 2, lines.removeLast().isEmpty else { throw AssistantError(.malformedResponse, "the head does not end in a blank line") }
        status = try Self.statusLine(lines.removeFirst())
        guard lines.count <= Self.maximumFields else { throw AssistantError(.responseTooLarge, "more than \(Self.maximumFields) header fields") }
        fields = try lines.map(Self.field)
        framing = try Self.framing(of: fields, status: status)
    }

    /// Where the head in `bytes` ends (the index after CRLF CRLF), or nil if it has not ended yet.
    public static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }

    static func lines(of head: [UInt8]) throws(AssistantError) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0, index = 0
        while index < head.count {
            let byte = head[index]
            if byte == 0x0D {
                guard index + 1 < head.count, head[index + 1] == 0x0A else { throw AssistantError(.malformedResponse, "a CR not followed by LF") }
                lines.append(head[start..<index])
                index += 2
                start = index
                continue
            }
            if byte == 0x0A { throw AssistantError(.malformedResponse, "a bare LF (lines end in CRLF)") }
            index += 1
        }
        guard start == head.count else { throw AssistantError(.malformedResponse, "the head does not end in CRLF") }
        return lines
    }

    static func statusLine(_ line: ArraySlice<UInt8>) throws(AssistantError) -> Int {
        let bytes = Array(line)
        let version = bytes.prefix(8)
        let knownVersion = version.elementsEqual("HTTP/1.1".utf8) || version.elementsEqual("HTTP/1.0".utf8)
        let spaced = bytes.count >= 12 && bytes[8] == 0x20 && (bytes.count == 12 || bytes[12] == 0x20)
        guard knownVersion, spaced else {
            throw AssistantError(.malformedResponse, "the status line is not 'HTTP/1.1 CODE REASON'")
        }
        let digits = bytes[9..<12]
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw AssistantError(.malformedResponse, "the status code is not three digits") }
        let status = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard (100...599).contains(status) else { throw AssistantError(.malformedResponse, "status \(status) is outside 100-599") }
        guard bytes.dropFirst(12).allSatisfy(isValueByte) else { throw AssistantError(.malformedResponse, "the reason phrase holds a control byte") }
        return status
    }

    static func field(_ line: ArraySlice<UInt8>) throws(AssistantError) -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: 0x3A) else { throw AssistantError(.malformedResponse, "a header line without a colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else { throw AssistantError(.malformedResponse, "a header name that is not a token") }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard value.allSatisfy(isValueByte) else { throw AssistantError(.malformedResponse, "a header value holds a control byte") }
        return (String(decoding: name, as: UTF8.self).lowercased(), String(decoding: value, as: UTF8.self))
    }

    static func framing(of fields: [(name: String, value: String)], status: Int) throws(AssistantError) -> Framing {
        let lengths = fields.filter { $0.name == "content-length" }
        let encodings = fields.filter { $0.name == "transfer-encoding" }
        guard lengths.count <= 1 else { throw AssistantError(.malformedResponse, "two Content-Length fields") }
        guard encodings.count <= 1 else { throw AssistantError(.malformedResponse, "two Transfer-Encoding fields") }
        if status == 204 || status == 304 || (100..<200).contains(status) { return .length(0) }
        if let encoding = encodings.first {
            guard lengths.isEmpty else { throw AssistantError(.malformedResponse, "both Transfer-Encoding and Content-Length") }
            guard encoding.value.lowercased() == "chunked" else { throw AssistantError(.malformedResponse, "a Transfer-Encoding other than chunked") }
            return .chunked
        }
        if let length = lengths.first {
            let digits = Array(length.value.utf8)
            guard (1...15).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let count = Int(length.value) else {
                throw AssistantError(.malformedResponse, "a Content-Length that is not 1 to 15 digits")
            }
            return .length(count)
        }
        return .untilClose
    }

    /// tchar (RFC 9110 §5.6.2): a letter, a digit or one of the listed marks.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        if (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) { return true }
        return tokenMarks.contains(byte)
    }

    private static let tokenMarks: Set<UInt8> = Set("!#$%&'*+-.^_`|~".utf8)

    /// VCHAR, SP, HTAB or obs-text (bytes 0x80-0xFF, which servers send in reason phrases).
    static func isValueByte(_ byte: UInt8) -> Bool { byte == 0x09 || (byte >= 0x20 && byte != 0x7F) }
}
