import Foundation
import PrivilegedSession

/// Ollama's native chat API: `POST /api/chat` with `"stream": true`, answered with newline-delimited
/// JSON, one object per line: `{"message": {"role": "assistant", "content": "..."}, "done": false}`
/// while it speaks, then `{"done": true, "done_reason": "stop", "prompt_eval_count": N,
/// "eval_count": M}`. Its quirks, accepted: tool calls come whole (arguments as a JSON object, not
/// text, and no id), the last line may carry an empty message, and an error is `{"error": "..."}`,
/// as a line of a 200 stream or as the body of a 4xx or 5xx.
public struct OllamaProvider: ModelProvider {
    public let configuration: ProviderConfiguration
    let client: HTTPClient

    public init(_ configuration: ProviderConfiguration, client: HTTPClient = HTTPClient()) {
        self.configuration = configuration
        self.client = client
    }

    public func stream(_ payload: ReleasedPayload, _ onEvent: (ChatEvent) throws -> Void) throws {
        let body = try Self.body(of: try transcript(of: payload), model: configuration.model)
        var lines = NDJSONLines()
        var decoder = LineDecoder()
        try client.postChat(body, for: configuration, path: "/api/chat", accept: "application/x-ndjson") { bytes in
            for line in try lines.feed(bytes) { try decoder.decode(line, onEvent) }
        }
        if let last = try lines.finish() { try decoder.decode(last, onEvent) }
        guard decoder.isDone else { throw AssistantError(.truncatedStream, "the stream ended before the model finished") }
    }

    static func body(of transcript: ChatTranscript, model: String) throws -> [UInt8] {
        var body: [String: Any] = ["model": model, "stream": true, "messages": try transcript.messages.map(message)]
        var options: [String: Any] = [:]
        if let maximum = transcript.maximumTokens { options["num_predict"] = maximum }
        if let temperature = transcript.temperature { options["temperature"] = temperature }
        if !options.isEmpty { body["options"] = options }
        if !transcript.tools.isEmpty {
            body["tools"] = try transcript.tools.map { tool in
                ["type": "function", "function": ["name": tool.name, "description": tool.description,
                                                  "parameters": try JSONSerialization.jsonObject(with: Data(tool.parametersSchema.utf8))]]
            }
        }
        return [UInt8](try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    static func message(_ message: ChatTranscript.Message) throws -> [String: Any] {
        var object: [String: Any] = ["role": message.role.rawValue, "content": message.content]
        if !message.toolCalls.isEmpty {
            object["tool_calls"] = try message.toolCalls.map { call in
                ["function": ["name": call.name, "arguments": try JSONSerialization.jsonObject(with: Data(call.arguments.utf8))]]
            }
        }
        return object
    }

    struct LineDecoder {
        private(set) var isDone = false
        private var calls = 0

        mutating func decode(_ line: String, _ onEvent: (ChatEvent) throws -> Void) throws {
            guard !isDone else { throw AssistantError(.malformedStream, "a line after the stream's last") }
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                throw AssistantError(.malformedStream, "a stream line that is not a JSON object")
            }
            if let error = object["error"] { throw ProviderFailure.streamError(error) }
            guard let done = object["done"] as? Bool else { throw AssistantError(.malformedStream, "a stream line without 'done'") }
            if let message = object["message"] as? [String: Any] { try decode(message, onEvent) }
            guard done else { return }
            isDone = true
            if let prompt = object["prompt_eval_count"] as? Int, let completion = object["eval_count"] as? Int {
                try onEvent(.usage(TokenUsage(promptTokens: prompt, completionTokens: completion)))
            }
            let reason = object["done_reason"] as? String ?? "stop"
            try onEvent(.finish(calls > 0 && reason == "stop" ? .toolCalls : FinishReason(wire: reason)))
        }

        private mutating func decode(_ message: [String: Any], _ onEvent: (ChatEvent) throws -> Void) throws {
            if let text = message["content"] as? String, !text.isEmpty { try onEvent(.text(text)) }
            for call in message["tool_calls"] as? [[String: Any]] ?? [] {
                guard let function = call["function"] as? [String: Any], let name = function["name"] as? String, !name.isEmpty else {
                    throw AssistantError(.malformedStream, "a tool call with no name")
                }
                guard calls < ToolCallAssembler.maximumCalls else { throw AssistantError(.malformedStream, "more than \(ToolCallAssembler.maximumCalls) tool calls") }
                let arguments = function["arguments"].flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys, .fragmentsAllowed]) }
                try onEvent(.toolCall(ToolCall(id: call["id"] as? String ?? "call_\(calls)", name: name,
                                               arguments: arguments.map { String(decoding: $0, as: UTF8.self) } ?? "{}")))
                calls += 1
            }
        }
    }
}
