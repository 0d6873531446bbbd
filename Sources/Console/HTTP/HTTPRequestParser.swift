/// Parses a request's head (RFC 9112 §2-§6), strictly: what is not in the grammar below is refused
/// with its reason, never guessed at, so that the server and any proxy-like reader agree on where a
/// request ends (no request smuggling) and nothing unbounded is read.
///
///     head          = request-line *( field-line CRLF ) CRLF
///     request-line  = method SP origin-form SP "HTTP/1.1" CRLF
///     method        = "GET" / "HEAD" / "POST" / "PUT" / "DELETE"
///     origin-form   = "/" *( VCHAR except "#" ), at most `targetBytes`
///     field-line    = field-name ":" *( SP / HTAB ) field-value *( SP / HTAB )
///     field-name    = 1*tchar (compared in lower case)
///     field-value   = *( VCHAR / SP / HTAB ), no leading or trailing whitespace kept
///
/// Refused as well: a bare LF or CR, obs-fold (a line starting with whitespace), whitespace before
/// the colon, a second Host or Content-Length, a missing Host, any Transfer-Encoding, a
/// Content-Length that is not 1 to 10 digits or is over the body limit, more than `fieldCount` fields.
public struct HTTPRequestParser: Sendable {
    public let limits: HTTPLimits

    public init(limits: HTTPLimits = HTTPLimits()) { self.limits = limits }

    /// The request described by `head` (its bytes up to and including the blank line), with an empty
    /// body, and the body's length that follows it.
    public func parse(head: [UInt8]) throws(ConsoleError) -> (request: HTTPRequest, bodyLength: Int) {
        guard head.count <= limits.headBytes else { throw ConsoleError(.headTooLarge, "the request head is over \(limits.headBytes) bytes") }
        var lines = try Self.lines(of: head)
        guard lines.count >= 2, lines.removeLast().isEmpty else { throw ConsoleError(.malformedRequest, "the head does not end in a blank line") }
        let (method, target) = try requestLine(lines.removeFirst())
        guard lines.count <= limits.fieldCount else { throw ConsoleError(.headTooLarge, "more than \(limits.fieldCount) header fields") }
        let fields = try lines.map(Self.field)
        let bodyLength = try Self.checkFraming(fields, limits: limits)
        let (path, query) = Self.split(target)
        return (HTTPRequest(method: method, path: path, query: query, fields: fields), bodyLength)
    }

    /// The head's lines without their CRLF; a CR or LF anywhere else is refused.
    static func lines(of head: [UInt8]) throws(ConsoleError) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0, index = 0
        while index < head.count {
            let byte = head[index]
            if byte == 0x0D {
                guard index + 1 < head.count, head[index + 1] == 0x0A else { throw ConsoleError(.malformedRequest, "a CR not followed by LF") }
                lines.append(head[start..<index])
                index += 2
                start = index
                continue
            }
            if byte == 0x0A { throw ConsoleError(.malformedRequest, "a bare LF (lines end in CRLF)") }
            index += 1
        }
        guard start == head.count else { throw ConsoleError(.malformedRequest, "the head does not end in CRLF") }
        return lines
    }

    func requestLine(_ line: ArraySlice<UInt8>) throws(ConsoleError) -> (HTTPMethod, String) {
        let parts = line.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw ConsoleError(.malformedRequest, "the request line is not 'METHOD TARGET HTTP/1.1'") }
        let methodText = String(decoding: parts[0], as: UTF8.self)
        guard parts[0].allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }), !parts[0].isEmpty else {
            throw ConsoleError(.malformedRequest, "the method is not a token of capital letters")
        }
        guard let method = HTTPMethod(rawValue: methodText) else { throw ConsoleError(.unsupportedMethod, "the method \(methodText) is not served") }
        guard Array(parts[2]) == Array("HTTP/1.1".utf8) else { throw ConsoleError(.malformedRequest, "only HTTP/1.1 is served") }
        let target = parts[1]
        guard target.count <= limits.targetBytes else { throw ConsoleError(.targetTooLong, "the request target is over \(limits.targetBytes) bytes") }
        guard target.first == 0x2F, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x23 }) else {
            throw ConsoleError(.malformedRequest, "the request target is not a path of visible ASCII starting with '/'")
        }
        return (method, String(decoding: target, as: UTF8.self))
    }

    static func field(_ line: ArraySlice<UInt8>) throws(ConsoleError) -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: 0x3A) else { throw ConsoleError(.malformedRequest, "a header line without a colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
            // Also refuses obs-fold (a line starting with whitespace) and whitespace before the colon.
            throw ConsoleError(.malformedRequest, "a header name that is not a token")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard value.allSatisfy({ ($0 >= 0x21 && $0 <= 0x7E) || $0 == 0x20 || $0 == 0x09 }) else {
            throw ConsoleError(.malformedRequest, "a header value with a control or non-ASCII byte")
        }
        return (String(decoding: name, as: UTF8.self).lowercased(), String(decoding: value, as: UTF8.self))
    }

    /// RFC 9110 §5.6.2's tchar.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// Host once, Content-Length at most once and bounded, no Transfer-Encoding: where the request
    /// ends is never in doubt. Returns the body's length.
    static func checkFraming(_ fields: [(name: String, value: String)], limits: HTTPLimits) throws(ConsoleError) -> Int {
        let hosts = fields.filter { $0.name == "host" }
        guard hosts.count == 1 else { throw ConsoleError(.malformedRequest, hosts.isEmpty ? "no Host field" : "more than one Host field") }
        guard !fields.contains(where: { $0.name == "transfer-encoding" }) else {
            throw ConsoleError(.unsupportedEncoding, "Transfer-Encoding is not accepted; send Content-Length")
        }
        let lengths = fields.filter { $0.name == "content-length" }
        guard lengths.count <= 1 else { throw ConsoleError(.malformedRequest, "more than one Content-Length field") }
        guard let text = lengths.first?.value else { return 0 }
        guard (1...10).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int(text) else {
            throw ConsoleError(.malformedRequest, "Content-Length is not a decimal number")
        }
        guard length <= limits.bodyBytes else { throw ConsoleError(.bodyTooLarge, "the body is over \(limits.bodyBytes) bytes") }
        return length
    }

    static func split(_ target: String) -> (path: String, query: String) {
        guard let mark = target.firstIndex(of: "?") else { return (target, "") }
        return (String(target[..<mark]), String(target[target.index(after: mark)...]))
    }
}
