/// A strict, bounded JSON reader for bytes from outside the vault (an MCP server's messages, a
/// model's tool-call arguments).
///
/// Grammar: RFC 8259 with nothing added: one value, optional whitespace around it, nothing after;
/// strings of valid UTF-8 with the standard escapes (a `\u` surrogate must be a correct pair); numbers
/// `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?` that fit a Double. Beyond the RFC it refuses
/// duplicate keys in one object (readers disagree which one wins, which a hostile server could use),
/// and it checks every bound before doing the work the bound limits: total bytes first, then depth,
/// members and string length as it goes, so a hostile message costs at most `limits` to refuse.
public struct StrictJSONParser: Sendable {
    public struct Limits: Sendable {
        public var maximumBytes: Int
        public var maximumDepth: Int
        /// Elements of one array plus members of one object count against this, per container.
        public var maximumMembers: Int
        public var maximumStringBytes: Int

        public init(maximumBytes: Int = 4 << 20, maximumDepth: Int = 64, maximumMembers: Int = 10_000,
                    maximumStringBytes: Int = 1 << 20) {
            self.maximumBytes = maximumBytes
            self.maximumDepth = maximumDepth
            self.maximumMembers = maximumMembers
            self.maximumStringBytes = maximumStringBytes
        }
    }

    public let limits: Limits

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    public func parse(_ bytes: [UInt8]) throws(AgentsError) -> JSONValue {
        guard bytes.count <= limits.maximumBytes else {
            throw AgentsError(.jsonTooLarge, "a JSON message of \(bytes.count) bytes is over the \(limits.maximumBytes)-byte bound")
        }
        var reader = JSONReader(bytes: bytes, limits: limits)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.atEnd else { throw reader.failure("bytes after the value") }
        return value
    }

    public func parse(_ text: String) throws(AgentsError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

/// The cursor over one message's bytes; one function per production of the grammar.
private struct JSONReader {
    let bytes: [UInt8]
    let limits: StrictJSONParser.Limits
    var position = 0

    init(bytes: [UInt8], limits: StrictJSONParser.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    var atEnd: Bool { position == bytes.count }

    func failure(_ what: String) -> AgentsError {
        AgentsError(.invalidJSON, "invalid JSON at byte \(position): \(what)")
    }

    mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    mutating func value(depth: Int) throws(AgentsError) -> JSONValue {
        guard position < bytes.count else { throw failure("the value is missing") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    mutating func literal(_ word: String) throws(AgentsError) {
        let expected = Array(word.utf8)
        guard bytes.count - position >= expected.count, bytes[position..<(position + expected.count)].elementsEqual(expected) else {
            throw failure("an unknown literal")
        }
        position += expected.count
    }

    mutating func enter(_ depth: Int) throws(AgentsError) {
        guard depth <= limits.maximumDepth else {
            throw AgentsError(.jsonTooLarge, "JSON nested deeper than \(limits.maximumDepth) levels")
        }
        position += 1
        skipWhitespace()
    }

    mutating func count(_ members: Int) throws(AgentsError) {
        guard members <= limits.maximumMembers else {
            throw AgentsError(.jsonTooLarge, "a JSON container with more than \(limits.maximumMembers) members")
        }
    }

    mutating func object(depth: Int) throws(AgentsError) -> JSONValue {
        try enter(depth)
        var members: [(key: String, value: JSONValue)] = []
        var keys = Set<String>()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            guard position < bytes.count else { throw failure("the container is not closed") }
            guard bytes[position] == UInt8(ascii: "\"") else { throw failure("an object key must be a string") }
            let key = try string()
            guard keys.insert(key).inserted else { throw failure("a key repeated in one object") }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "a ':' after an object key")
            skipWhitespace()
            members.append((key: key, value: try value(depth: depth)))
            try count(members.count)
            skipWhitespace()
            if try closes(UInt8(ascii: "}")) { return .object(members) }
        }
    }

    mutating func array(depth: Int) throws(AgentsError) -> JSONValue {
        try enter(depth)
        var items: [JSONValue] = []
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return .array(items) }
        while true {
            items.append(try value(depth: depth))
            try count(items.count)
            skipWhitespace()
            if try closes(UInt8(ascii: "]")) { return .array(items) }
        }
    }

    /// After a member: true at the closing bracket, false after a comma (whitespace skipped).
    mutating func closes(_ bracket: UInt8) throws(AgentsError) -> Bool {
        guard position < bytes.count else { throw failure("the container is not closed") }
        if bytes[position] == bracket { position += 1; return true }
        try expect(UInt8(ascii: ","), "a ',' or the closing bracket")
        skipWhitespace()
        return false
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(AgentsError) {
        guard position < bytes.count, bytes[position] == byte else { throw failure("expected \(what)") }
        position += 1
    }

    mutating func number() throws(AgentsError) -> Double {
        let start = position
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else { throw failure("an unexpected character") }
        if bytes[position] == UInt8(ascii: "0") { position += 1 } else { skipDigits() }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure("a fraction needs a digit") }
            skipDigits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count, isDigit(bytes[position]) else { throw failure("an exponent needs a digit") }
            skipDigits()
        }
        guard position - start <= 64 else { throw AgentsError(.jsonTooLarge, "a JSON number longer than 64 characters") }
        guard let number = Double(String(decoding: bytes[start..<position], as: UTF8.self)), number.isFinite else {
            throw failure("a number out of range")
        }
        return number
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    mutating func skipDigits() {
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
    }

    mutating func string() throws(AgentsError) -> String {
        position += 1   // the opening quote
        var scalars = String.UnicodeScalarView()
        var length = 0
        while true {
            guard position < bytes.count else { throw failure("the string is not closed") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { position += 1; return String(scalars) }
            guard byte >= 0x20 else { throw failure("a control character in a string") }
            let scalar = byte == UInt8(ascii: "\\") ? try escape() : try utf8Scalar()
            length += scalar.utf8.count
            guard length <= limits.maximumStringBytes else {
                throw AgentsError(.jsonTooLarge, "a JSON string longer than \(limits.maximumStringBytes) bytes")
            }
            scalars.append(scalar)
        }
    }

    /// One escape after a backslash; a `\u` high surrogate must be followed by `\u` and its low half.
    mutating func escape() throws(AgentsError) -> Unicode.Scalar {
        position += 1
        guard position < bytes.count else { throw failure("the string is not closed") }
        let letter = bytes[position]
        position += 1
        switch letter {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): break
        default: throw failure("an unknown escape")
        }
        let first = try hexQuad()
        if (0xDC00...0xDFFF).contains(first) { throw failure("a lone low surrogate") }
        guard (0xD800...0xDBFF).contains(first) else { return Unicode.Scalar(first)! }
        guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
            throw failure("a high surrogate without its low half")
        }
        position += 2
        let second = try hexQuad()
        guard (0xDC00...0xDFFF).contains(second) else { throw failure("a high surrogate without its low half") }
        return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
    }

    mutating func hexQuad() throws(AgentsError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw failure("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for byte in bytes[position..<(position + 4)] {
            guard let digit = hexDigit(byte) else { throw failure("a \\u escape needs four hex digits") }
            value = value << 4 | digit
        }
        position += 4
        return value
    }

    func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x46: UInt32(byte - 0x41 + 10)
        case 0x61...0x66: UInt32(byte - 0x61 + 10)
        default: nil
        }
    }

    /// One UTF-8 encoded scalar, shortest form only (no overlongs, no surrogates, nothing past U+10FFFF).
    mutating func utf8Scalar() throws(AgentsError) -> Unicode.Scalar {
        let lead = bytes[position]
        let (count, minimum, initial): (Int, UInt32, UInt32) = switch lead {
        case 0x00...0x7F: (1, 0, UInt32(lead))
        case 0xC2...0xDF: (2, 0x80, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (3, 0x800, UInt32(lead & 0x0F))
        case 0xF0...0xF4: (4, 0x10000, UInt32(lead & 0x07))
        default: (0, 0, 0)
        }
        guard count > 0, bytes.count - position >= count else { throw failure("invalid UTF-8") }
        var value = initial
        for byte in bytes[(position + 1)..<(position + count)] {
            guard byte & 0xC0 == 0x80 else { throw failure("invalid UTF-8") }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, value <= 0x10FFFF, let scalar = Unicode.Scalar(value) else { throw failure("invalid UTF-8") }
        position += count
        return scalar
    }
}
