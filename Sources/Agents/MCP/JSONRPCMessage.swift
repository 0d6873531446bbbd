/// One JSON-RPC 2.0 message as an MCP server sends it over stdio: one line of UTF-8 JSON.
///
/// Grammar (JSON-RPC 2.0 §4-5, MCP's basic protocol): an object with `"jsonrpc": "2.0"` and
///   a request:      `id` (string or integer) and `method` (string), `params` (object) optional;
///   a notification: `method` and no `id`;
///   a response:     `id` and exactly one of `result` (object) or `error` (object with an integer
///                   `code`, a string `message`, `data` optional).
/// Anything else (batches, a null id, `result` and `error` together, unknown top-level members) is
/// refused: MCP sends none of them, and a lenient reader is one a hostile server can steer.
public enum JSONRPCMessage: Sendable, Equatable {
    case request(id: JSONRPCID, method: String, params: JSONValue?)
    case notification(method: String, params: JSONValue?)
    case result(id: JSONRPCID, result: JSONValue)
    case error(id: JSONRPCID?, JSONRPCError)

    /// Bounds on what one message may carry; the line itself is bounded before it is parsed.
    public static let parser = StrictJSONParser(limits: .init(maximumBytes: 4 << 20, maximumDepth: 64,
                                                              maximumMembers: 10_000, maximumStringBytes: 1 << 20))

    public init(parsing line: [UInt8], parser: StrictJSONParser = JSONRPCMessage.parser) throws(AgentsError) {
        let value: JSONValue
        do { value = try parser.parse(line) } catch {
            throw AgentsError(error.code == .jsonTooLarge ? .mcpTooLarge : .mcpProtocolViolation, "the server sent \(error.message)")
        }
        guard let members = value.objectValue else { throw Self.violation("a message that is not a JSON object") }
        let allowed: Set<String> = ["jsonrpc", "id", "method", "params", "result", "error"]
        guard members.allSatisfy({ allowed.contains($0.key) }) else { throw Self.violation("a message with an unknown member") }
        guard value["jsonrpc"] == .string("2.0") else { throw Self.violation("a message without \"jsonrpc\": \"2.0\"") }
        self = try Self.classify(value)
    }

    private static func classify(_ value: JSONValue) throws(AgentsError) -> JSONRPCMessage {
        let id = try value["id"].map { (raw: JSONValue) throws(AgentsError) -> JSONRPCID in try JSONRPCID(raw) }
        if let method = value["method"] {
            guard let name = method.stringValue, !name.isEmpty, name.utf8.count <= 256 else { throw violation("a method that is not a short string") }
            guard value["result"] == nil, value["error"] == nil else { throw violation("a request that also carries a result") }
            let params = value["params"]
            if let params, params.objectValue == nil { throw violation("params that are not an object") }
            if let id { return .request(id: id, method: name, params: params) }
            return .notification(method: name, params: params)
        }
        guard value["params"] == nil else { throw violation("params in a response") }
        switch (value["result"], value["error"]) {
        case let (result?, nil):
            guard let id else { throw violation("a result without an id") }
            guard result.objectValue != nil else { throw violation("a result that is not an object") }
            return .result(id: id, result: result)
        case let (nil, error?):
            return .error(id: id, try JSONRPCError(error))
        default:
            throw violation("a response with neither or both of result and error")
        }
    }

    static func violation(_ what: String) -> AgentsError {
        AgentsError(.mcpProtocolViolation, "the server sent \(what)")
    }

    /// The message as one line, without its newline.
    public var encoded: [UInt8] {
        var members: [(key: String, value: JSONValue)] = [(key: "jsonrpc", value: .string("2.0"))]
        switch self {
        case let .request(id, method, params):
            members += [(key: "id", value: id.json), (key: "method", value: .string(method))]
            if let params { members.append((key: "params", value: params)) }
        case let .notification(method, params):
            members.append((key: "method", value: .string(method)))
            if let params { members.append((key: "params", value: params)) }
        case let .result(id, result):
            members += [(key: "id", value: id.json), (key: "result", value: result)]
        case let .error(id, error):
            if let id { members.append((key: "id", value: id.json)) }
            members.append((key: "error", value: error.json))
        }
        return JSONWriter.bytes(.object(members))
    }
}

/// A request id: JSON-RPC allows a string or a number; MCP forbids null. Ours are integers.
public enum JSONRPCID: Sendable, Hashable {
    case number(Int)
    case string(String)

    init(_ value: JSONValue) throws(AgentsError) {
        if let number = value.integerValue { self = .number(number); return }
        if let text = value.stringValue, text.utf8.count <= 256 { self = .string(text); return }
        throw JSONRPCMessage.violation("an id that is not an integer or a short string")
    }

    var json: JSONValue {
        switch self {
        case .number(let number): .number(Double(number))
        case .string(let text): .string(text)
        }
    }
}

/// The error member of a response (JSON-RPC 2.0 §5.1).
public struct JSONRPCError: Error, Sendable, Equatable {
    public let code: Int
    public let message: String
    public let data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    init(_ value: JSONValue) throws(AgentsError) {
        guard let members = value.objectValue, members.allSatisfy({ ["code", "message", "data"].contains($0.key) }),
              let code = value["code"]?.integerValue, let message = value["message"]?.stringValue else {
            throw JSONRPCMessage.violation("an error that is not {code, message, data}")
        }
        self.init(code: code, message: message, data: value["data"])
    }

    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [(key: "code", value: .number(Double(code))), (key: "message", value: .string(message))]
        if let data { members.append((key: "data", value: data)) }
        return .object(members)
    }

    /// The message cut to a line a person can read in an error: a server's text is untrusted, so
    /// control characters go and the length is bounded.
    var printable: String {
        let cleaned = message.unicodeScalars.filter { !$0.properties.generalCategory.isControl }
        return String(String.UnicodeScalarView(cleaned.prefix(200)))
    }

    public static let methodNotFound = -32601
    public static let invalidParams = -32602
    /// 2026-07-28: the server does not implement the requested protocol version.
    public static let unsupportedProtocolVersion = -32022
}

private extension Unicode.GeneralCategory {
    var isControl: Bool { self == .control || self == .format || self == .lineSeparator || self == .paragraphSeparator }
}
