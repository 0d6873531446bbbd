import Foundation

/// The bytes of a chat request as the egress funnel sees them, and as a provider receives them back
/// in a `ReleasedPayload` (SECURITY.md §17.3). It is plain text, not the provider's JSON, because the
/// leak guard reads words: in JSON a line break is the two bytes `\n`, which would glue the letter n
/// to the next word and hide a quote that spans lines. A provider turns the released transcript into
/// its own wire format, so what the funnel scanned is exactly what is sent, redactions included.
///
///     transcript = "chat-v1" 1*part
///     part       = RS kind US content
///     kind       = "system" / "user" / "assistant" / "tool:" call-id / "calls" / "tools" / "options"
///
/// RS is 0x1E, US 0x1F; content is UTF-8 without either. `calls` (after an assistant part) is a JSON
/// array of `{"id","name","arguments"}`; `tools` a JSON array of `{"name","description","parameters"}`;
/// `options` a JSON object with `max_tokens` and `temperature`. A redaction span that crossed a
/// part boundary leaves a transcript that does not parse: the call then fails and nothing is sent.
public struct ChatTranscript: Sendable, Equatable {
    static let magic = Array("chat-v1".utf8)
    static let recordSeparator: UInt8 = 0x1E
    static let unitSeparator: UInt8 = 0x1F
    public static let maximumBytes = 8 * 1024 * 1024

    /// A message as a provider sends it: role and text, no compartments (they stay in the vault).
    public struct Message: Sendable, Equatable {
        public var role: ChatMessage.Role
        public var content: String
        public var toolCalls: [ToolCall]
        public var toolCallID: String?
    }

    public var messages: [Message]
    public var tools: [ToolDefinition]
    public var maximumTokens: Int?
    public var temperature: Double?

    /// The transcript of `request`. RS and US in its text (which no document holds) become spaces.
    public static func encode(_ request: ChatRequest) -> [UInt8] {
        var bytes = magic
        for message in request.messages {
            let kind = message.role == .tool ? "tool:\(clean(message.toolCallID ?? ""))" : message.role.rawValue
            append(kind, clean(message.content.text), to: &bytes)
            if !message.toolCalls.isEmpty {
                append("calls", json(message.toolCalls.map { ["id": $0.id, "name": $0.name, "arguments": $0.arguments] }), to: &bytes)
            }
        }
        if !request.tools.isEmpty {
            append("tools", json(request.tools.map { ["name": $0.name, "description": $0.description, "parameters": $0.parametersSchema] }), to: &bytes)
        }
        var options: [String: Any] = [:]
        if let maximum = request.maximumTokens { options["max_tokens"] = maximum }
        if let temperature = request.temperature { options["temperature"] = temperature }
        if !options.isEmpty { append("options", json(options), to: &bytes) }
        return bytes
    }

    /// Parses released transcript bytes, strictly.
    public init(parsing bytes: [UInt8]) throws {
        guard bytes.count <= Self.maximumBytes else { throw AssistantError(.invalidTranscript, "a transcript over \(Self.maximumBytes) bytes") }
        guard bytes.starts(with: Self.magic) else { throw AssistantError(.invalidTranscript, "the payload is not a chat transcript") }
        messages = []
        tools = []
        let parts = bytes.dropFirst(Self.magic.count).split(separator: Self.recordSeparator, omittingEmptySubsequences: false)
        guard parts.first?.isEmpty == true, parts.count >= 2 else { throw AssistantError(.invalidTranscript, "a transcript with no message") }
        for part in parts.dropFirst() { try add(part) }
        guard !messages.isEmpty else { throw AssistantError(.invalidTranscript, "a transcript with no message") }
    }

    private mutating func add(_ part: ArraySlice<UInt8>) throws {
        guard let separator = part.firstIndex(of: Self.unitSeparator),
              let kind = String(validating: part[part.startIndex..<separator], as: UTF8.self),
              let content = String(validating: part[(separator + 1)...], as: UTF8.self),
              !content.utf8.contains(Self.unitSeparator) else {
            throw AssistantError(.invalidTranscript, "a transcript part that is not KIND US TEXT (a redaction may have crossed a message boundary)")
        }
        switch kind {
        case "system", "user", "assistant":
            messages.append(Message(role: ChatMessage.Role(rawValue: kind)!, content: content, toolCalls: [], toolCallID: nil))
        case "calls":
            guard let last = messages.indices.last, messages[last].role == .assistant else {
                throw AssistantError(.invalidTranscript, "tool calls not after an assistant message")
            }
            messages[last].toolCalls = try Self.objects(content).map { ToolCall(id: try Self.string($0, "id"), name: try Self.string($0, "name"),
                                                                                arguments: try Self.string($0, "arguments")) }
        case "tools":
            tools = try Self.objects(content).map { ToolDefinition(name: try Self.string($0, "name"), description: try Self.string($0, "description"),
                                                                   parametersSchema: try Self.string($0, "parameters")) }
        case "options":
            let object = try Self.object(content)
            maximumTokens = object["max_tokens"] as? Int
            temperature = object["temperature"] as? Double
        default:
            guard kind.hasPrefix("tool:") else { throw AssistantError(.invalidTranscript, "an unknown transcript part '\(kind.prefix(16))'") }
            messages.append(Message(role: .tool, content: content, toolCalls: [], toolCallID: String(kind.dropFirst(5))))
        }
    }

    private static func append(_ kind: String, _ content: String, to bytes: inout [UInt8]) {
        bytes.append(recordSeparator)
        bytes.append(contentsOf: kind.utf8)
        bytes.append(unitSeparator)
        bytes.append(contentsOf: content.utf8)
    }

    private static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == recordSeparator || $0 == unitSeparator }) else { return text }
        return String(text.map { $0 == "\u{1E}" || $0 == "\u{1F}" ? " " : $0 })
    }

    static func json(_ value: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private static func object(_ text: String) throws(AssistantError) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw AssistantError(.invalidTranscript, "a transcript part that is not a JSON object")
        }
        return object
    }

    private static func objects(_ text: String) throws(AssistantError) -> [[String: Any]] {
        guard let array = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] else {
            throw AssistantError(.invalidTranscript, "a transcript part that is not a JSON array of objects")
        }
        return array
    }

    private static func string(_ object: [String: Any], _ key: String) throws(AssistantError) -> String {
        guard let value = object[key] as? String else { throw AssistantError(.invalidTranscript, "a transcript object without its '\(key)'") }
        return value
    }
}
