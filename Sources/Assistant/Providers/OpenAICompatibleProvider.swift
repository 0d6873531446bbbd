import Foundation
import PrivilegedSession

/// The OpenAI chat-completions protocol as llama.cpp's server, vLLM and Ollama's `/v1` speak it:
/// `POST /v1/chat/completions` with `"stream": true`, answered with server-sent events, each a JSON
/// chunk, ended by `data: [DONE]`. What the servers differ on, and we accept:
/// - the usage: in the last chunk with a finish reason (llama.cpp), or in a chunk of its own whose
///   `choices` is empty (vLLM, OpenAI, Ollama with `stream_options.include_usage`) or null;
/// - a first chunk with only the role, chunks with an empty or null `content`;
/// - tool calls streamed as deltas keyed by `index` (id and name first, the arguments in pieces);
/// - an error as an event `{"error": {...}}` in the middle of a 200 stream (vLLM, llama.cpp);
/// - a stream that ends without `[DONE]` after a finish reason (taken as ended); not `[DONE]` without
///   a finish reason (llama-cpp-python cutting an answer short when another request arrives).
/// Anything else (an event that is not JSON, a chunk with choices of the wrong type) is refused.
public struct OpenAICompatibleProvider: ModelProvider {
    public let configuration: ProviderConfiguration
    let client: HTTPClient

    public init(_ configuration: ProviderConfiguration, client: HTTPClient = HTTPClient()) {
        self.configuration = configuration
        self.client = client
    }

    public func stream(_ payload: ReleasedPayload, _ onEvent: (ChatEvent) throws -> Void) throws {
        let body = try Self.body(of: try transcript(of: payload), model: configuration.model)
        var events = ServerSentEvents()
        var decoder = ChunkDecoder()
        try client.postChat(body, for: configuration, path: Self.path(configuration.kind), accept: "text/event-stream") { bytes in
            for event in try events.feed(bytes) where !decoder.isDone { try decoder.decode(event.data, onEvent) }
        }
        try decoder.end(midEvent: events.isMidEvent, onEvent)
    }

    /// Under the provider's URL: `/v1/chat/completions`, or for a custom endpoint, whose URL is the
    /// API's base as its owner gave it, `/chat/completions`.
    static func path(_ kind: ProviderConfiguration.Kind) -> String {
        kind == .custom ? "/chat/completions" : "/v1/chat/completions"
    }

    /// The request body: the model, the messages, the tools, the bounds, and a streamed answer with usage.
    static func body(of transcript: ChatTranscript, model: String) throws -> [UInt8] {
        var body: [String: Any] = ["model": model, "stream": true, "stream_options": ["include_usage": true],
                                   "messages": transcript.messages.map(message)]
        if let maximum = transcript.maximumTokens { body["max_tokens"] = maximum }
        if let temperature = transcript.temperature { body["temperature"] = temperature }
        if !transcript.tools.isEmpty {
            body["tools"] = try transcript.tools.map { tool in
                ["type": "function", "function": ["name": tool.name, "description": tool.description,
                                                  "parameters": try JSONSerialization.jsonObject(with: Data(tool.parametersSchema.utf8))]]
            }
        }
        return [UInt8](try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    static func message(_ message: ChatTranscript.Message) -> [String: Any] {
        var object: [String: Any] = ["role": message.role.rawValue, "content": message.content]
        if !message.toolCalls.isEmpty {
            object["tool_calls"] = message.toolCalls.map { ["id": $0.id, "type": "function", "function": ["name": $0.name, "arguments": $0.arguments]] }
        }
        if let id = message.toolCallID { object["tool_call_id"] = id }
        return object
    }

    /// Turns the stream's JSON chunks into events.
    struct ChunkDecoder {
        private(set) var isDone = false
        private var finish: FinishReason?
        private var usage: TokenUsage?
        private var calls = ToolCallAssembler()

        mutating func decode(_ data: String, _ onEvent: (ChatEvent) throws -> Void) throws {
            if data == "[DONE]" { isDone = true; return }
            guard let chunk = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] else {
                throw AssistantError(.malformedStream, "a stream event that is not a JSON object")
            }
            if let error = chunk["error"] { throw ProviderFailure.streamError(error) }
            if let counts = chunk["usage"] as? [String: Any], let prompt = counts["prompt_tokens"] as? Int,
               let completion = counts["completion_tokens"] as? Int {
                usage = TokenUsage(promptTokens: prompt, completionTokens: completion)
            }
            switch chunk["choices"] {
            case nil, is NSNull: return
            case let choices as [[String: Any]]: for choice in choices where (choice["index"] as? Int ?? 0) == 0 { try decode(choice, onEvent) }
            default: throw AssistantError(.malformedStream, "a chunk whose choices is not a list")
            }
        }

        private mutating func decode(_ choice: [String: Any], _ onEvent: (ChatEvent) throws -> Void) throws {
            if let delta = choice["delta"] as? [String: Any] {
                if let text = delta["content"] as? String, !text.isEmpty { try onEvent(.text(text)) }
                for call in delta["tool_calls"] as? [[String: Any]] ?? [] {
                    let function = call["function"] as? [String: Any]
                    try calls.add(index: call["index"] as? Int ?? 0, id: call["id"] as? String, name: function?["name"] as? String,
                                  arguments: function?["arguments"] as? String)
                }
            }
            if let reason = choice["finish_reason"] as? String { finish = FinishReason(wire: reason) }
        }

        /// The stream's body ended: emit what was gathered, or refuse a stream cut short.
        mutating func end(midEvent: Bool, _ onEvent: (ChatEvent) throws -> Void) throws {
            guard isDone || (finish != nil && !midEvent) else {
                throw AssistantError(.truncatedStream, "the stream ended before the model finished")
            }
            // Every server sends a finish reason before [DONE]; llama-cpp-python sends [DONE] alone when
            // it cuts an answer short for another request. That is an answer cut short, not an ending.
            guard finish != nil else {
                throw AssistantError(.truncatedStream, "the stream ended without a finish reason: the server cut the answer short")
            }
            for call in try calls.finish() { try onEvent(.toolCall(call)) }
            if let usage { try onEvent(.usage(usage)) }
            try onEvent(.finish(finish ?? .stop))
        }
    }
}

/// A provider's refusal, said without its text: a server's error message can quote the prompt, so
/// only the status and the error's type or code (short tokens) are kept.
enum ProviderFailure {
    static func status(_ status: Int, body: [UInt8]) -> AssistantError {
        let kind = errorKind((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])
        let said = kind.map { " (\($0))" } ?? ""
        switch status {
        case 429: return AssistantError(.providerStatus, "the provider is busy: 429 too many requests\(said); try again later")
        case 401, 403:
            return AssistantError(.providerStatus, "the provider refused the request's credentials: \(status)\(said); check the provider's "
                                  + "headers ('vaultctl ai providers list'; remove it and add it again with the right value)")
        default: return AssistantError(.providerStatus, "the provider answered \(status)\(said)")
        }
    }

    static func streamError(_ error: Any) -> AssistantError {
        let kind = errorKind(["error": error])
        return AssistantError(.providerError, "the provider reported an error mid-stream\(kind.map { " (\($0))" } ?? "")")
    }

    /// `error.type` or `error.code` when it is a short token (letters, digits, '_', '-', '.').
    static func errorKind(_ object: [String: Any]?) -> String? {
        let error = object?["error"] as? [String: Any]
        let candidates = [error?["type"], error?["code"], object?["error"]].compactMap { $0.map { "\($0)" } }
        return candidates.first(where: isShortToken)
    }

    static func isShortToken(_ text: String) -> Bool {
        guard (1...40).contains(text.utf8.count) else { return false }
        return text.utf8.allSatisfy { byte in ProviderConfiguration.isNameByte(byte) || (0x41...0x5A).contains(byte) }
    }
}
