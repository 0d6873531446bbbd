@testable import Assistant
import Foundation
import PrivilegedSession
import Testing
import TestSupport

/// The providers against recorded streams of llama.cpp, llama-cpp-python, vLLM and Ollama, replayed
/// by a loopback server of our own: the answer, tool calls assembled from deltas, usage, the finish
/// reason, and the request each sent (read from the server's own log).
@Suite struct ProviderStreamTests {
    func answer(_ steps: [ReplayServer.Step], kind: ProviderConfiguration.Kind = .openai,
                request: ChatRequest = AssistantFixture.chat) throws -> (ChatAnswer, ReplayServer.Request) {
        let fixture = try AssistantFixture()
        let server = try ReplayServer { _ in steps }
        defer { server.stop() }
        let provider = try fixture.provider(server, kind: kind)
        let released = try fixture.released(request, for: provider, from: try fixture.project())
        let answer = try makeProvider(provider, client: AssistantFixture.quickClient).complete(released)
        return (answer, try #require(server.requests.first))
    }

    @Test func llamaCppStreamGivesTextUsageAndStop() throws {
        let (answer, request) = try answer(Wire.chunkedEvents(RecordedStreams.llamaCpp))
        #expect(answer.text == "The harbour was quiet.")
        #expect(answer.usage == TokenUsage(promptTokens: 41, completionTokens: 5))
        #expect(answer.finishReason == .stop)
        #expect(request.head.hasPrefix("POST /v1/chat/completions HTTP/1.1\r\n"))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(body["model"] as? String == "smollm2")
        #expect(body["stream"] as? Bool == true)
        let messages = try #require(body["messages"] as? [[String: String]])
        #expect(messages == [["role": "system", "content": "You are a careful editor."], ["role": "user", "content": "Continue: the boats came in."]])
    }

    /// The real llama-cpp-python server's bytes (captured): LF LF between events, a first chunk with
    /// only the role, no usage even when asked for it (`stream_options.include_usage`), a finish
    /// reason in a chunk with an empty delta, then `[DONE]`.
    @Test(arguments: [("stream-chat", "The ferry came in late and the gulls followed it.", FinishReason.stop),
                      ("stream-length", "The ferry came", .length),
                      ("stream-include-usage", "The ferry came in late and the g", .length)])
    func capturedLlamaCppPythonStreams(_ name: String, text: String, finish: FinishReason) throws {
        let (answer, _) = try answer([.send(try RecordedStreams.captured(name))])
        #expect(answer.text == text)
        #expect(answer.finishReason == finish)
        #expect(answer.usage == nil, "this server sends no usage in a stream")
    }

    /// The same bytes a few at a time, as a slow network would deliver them: the same answer.
    @Test func capturedStreamInSmallPiecesGivesTheSameAnswer() throws {
        let bytes = try RecordedStreams.captured("stream-chat")
        let pieces = stride(from: 0, to: bytes.count, by: 97).map { ReplayServer.Step.send(Array(bytes[$0..<min($0 + 97, bytes.count)])) }
        let (answer, _) = try answer(pieces)
        #expect(answer.text == "The ferry came in late and the gulls followed it.")
    }

    @Test func vllmStreamTakesUsageFromAChunkWithEmptyChoices() throws {
        let (answer, _) = try answer(Wire.chunkedEvents(RecordedStreams.vllm))
        #expect(answer.text == "Rain fell on the quay.")
        #expect(answer.usage == TokenUsage(promptTokens: 52, completionTokens: 7))
        #expect(answer.finishReason == .stop)
    }

    @Test func vllmToolCallIsAssembledFromItsDeltas() throws {
        let tools = [ToolDefinition(name: "search_notes", description: "Search the project's notes",
                                    parametersSchema: #"{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}"#)]
        let request = ChatRequest(messages: AssistantFixture.chat.messages, tools: tools)
        let (answer, sent) = try answer(Wire.chunkedEvents(RecordedStreams.vllmToolCall), request: request)
        #expect(answer.toolCalls == [ToolCall(id: "chatcmpl-tool-4f2", name: "search_notes", arguments: #"{"query": "harbour"}"#)])
        #expect(answer.finishReason == .toolCalls)
        #expect(answer.text.isEmpty)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(sent.body)) as? [String: Any])
        let sentTools = try #require(body["tools"] as? [[String: Any]])
        #expect((sentTools.first?["function"] as? [String: Any])?["name"] as? String == "search_notes")
    }

    @Test func ollamaOpenAIStreamWithNullChoices() throws {
        let (answer, _) = try answer(Wire.chunkedEvents(RecordedStreams.ollamaOpenAI))
        #expect(answer.text == "Fog rolled in.")
        #expect(answer.usage == TokenUsage(promptTokens: 30, completionTokens: 4))
    }

    @Test func ollamaNativeStream() throws {
        let (answer, request) = try answer(RecordedStreams.ndjson(RecordedStreams.ollamaNative), kind: .ollama)
        #expect(answer.text == "Lamps came on.")
        #expect(answer.usage == TokenUsage(promptTokens: 33, completionTokens: 4))
        #expect(answer.finishReason == .stop)
        #expect(request.head.hasPrefix("POST /api/chat HTTP/1.1\r\n"))
    }

    @Test func ollamaNativeToolCallArrivesWhole() throws {
        let (answer, _) = try answer(RecordedStreams.ndjson(RecordedStreams.ollamaNativeToolCall), kind: .ollama)
        #expect(answer.toolCalls == [ToolCall(id: "call_0", name: "search_notes", arguments: #"{"query":"harbour"}"#)])
        #expect(answer.finishReason == .toolCalls)
    }

    @Test func contentLengthAnswerWithoutDoneAfterAFinishReason() throws {
        let body = RecordedStreams.llamaCpp.dropLast().map { "data: \($0)\n\n" }.joined()
        let steps: [ReplayServer.Step] = [.send(Wire.head(200, ["Content-Type: text/event-stream", "Content-Length: \(body.utf8.count)"]) + Array(body.utf8))]
        let (answer, _) = try answer(steps)
        #expect(answer.text == "The harbour was quiet.")
    }
}
