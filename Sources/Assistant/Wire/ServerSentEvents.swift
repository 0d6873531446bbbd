/// Reads a `text/event-stream` (the WHATWG HTML standard, "Server-sent events", §9.2.6) as its
/// bytes arrive, with bounds:
///
///     stream = [ BOM ] *event
///     event  = *( comment / field ) end-of-line
///     comment = ":" *any-char end-of-line
///     field  = name [ ":" [ SP ] value ] end-of-line
///     end-of-line = CRLF / LF / CR
///
/// Each blank line dispatches the event gathered so far (its `data` lines joined with LF) if it has
/// any data; `event` names it; `id` and `retry` are read and ignored (we never reconnect); unknown
/// fields are ignored, as the standard says. Bounds: a line of at most `maximumLineBytes`, an
/// event's data of at most `maximumEventBytes` (a larger one is refused, not cut). Data must be UTF-8.
public struct ServerSentEvents: Sendable {
    public static let maximumLineBytes = 1024 * 1024
    public static let maximumEventBytes = 4 * 1024 * 1024

    public struct Event: Sendable, Equatable {
        public let name: String
        public let data: String
    }

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var name = ""
    private var afterCR = false
    private var atStart = true

    public init() {}

    /// The events completed by `bytes`.
    public mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(AssistantError) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 0x0A { continue }
            }
            if byte == 0x0D || byte == 0x0A {
                afterCR = byte == 0x0D
                if let event = try endOfLine() { events.append(event) }
                continue
            }
            guard line.count < Self.maximumLineBytes else { throw AssistantError(.responseTooLarge, "an event-stream line over \(Self.maximumLineBytes) bytes") }
            line.append(byte)
        }
        return events
    }

    /// Whether bytes of an unfinished event are waiting (a stream that ends here was cut).
    public var isMidEvent: Bool { !line.isEmpty || hasData }

    private mutating func endOfLine() throws(AssistantError) -> Event? {
        defer { line = [] }
        if atStart {
            atStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        if line.isEmpty { return try dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let colon = line.firstIndex(of: UInt8(ascii: ":"))
        let field = colon.map { Array(line[..<$0]) } ?? line
        var value = colon.map { Array(line[($0 + 1)...]) } ?? []
        if value.first == 0x20 { value.removeFirst() }
        switch String(decoding: field, as: UTF8.self) {
        case "data":
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
            guard data.count <= Self.maximumEventBytes else { throw AssistantError(.responseTooLarge, "an event over \(Self.maximumEventBytes) bytes") }
        case "event":
            name = try Self.text(value)
        default:
            break   // id, retry and unknown fields
        }
        return nil
    }

    private mutating func dispatch() throws(AssistantError) -> Event? {
        defer { data = []; hasData = false; name = "" }
        guard hasData else { return nil }
        return Event(name: name.isEmpty ? "message" : name, data: try Self.text(data))
    }

    static func text(_ bytes: [UInt8]) throws(AssistantError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw AssistantError(.malformedStream, "an event that is not UTF-8") }
        return text
    }
}
