@testable import Assistant
import Foundation
import PrivilegedSession
import Testing
import TestSupport

/// The error paths, against a loopback server that misbehaves as real ones do: each ends with its
/// own error code, within its time bound, and no error message repeats what the server said.
@Suite struct ProviderErrorTests {
    func failure(_ steps: [ReplayServer.Step], kind: ProviderConfiguration.Kind = .openai) throws -> (AssistantError?, Duration) {
        let fixture = try AssistantFixture()
        let server = try ReplayServer { _ in steps }
        defer { server.stop() }
        let provider = try fixture.provider(server, kind: kind)
        let released = try fixture.released(AssistantFixture.chat, for: provider, from: try fixture.project())
        let start = ContinuousClock.now
        do {
            _ = try makeProvider(provider, client: AssistantFixture.quickClient).complete(released)
            return (nil, start.duration(to: .now))
        } catch let error as AssistantError {
            return (error, start.duration(to: .now))
        }
    }

    static let secretEcho = "PROMPT-WORDS-THE-SERVER-ECHOED"

    @Test func connectionDroppedMidStreamIsATruncatedStream() throws {
        let events = RecordedStreams.llamaCpp.prefix(3).map { Wire.chunk("data: \($0)\n\n") }
        let (error, _) = try failure([.send(Wire.head(200, ["Content-Type: text/event-stream", "Transfer-Encoding: chunked"]))] + events.map { .send($0) })
        #expect(error?.code == .truncatedStream)
    }

    /// Captured: a prompt over the server's context gets 200 and an empty chunked body (the error is
    /// raised inside the server's generator, after the head): no event, no [DONE].
    @Test func capturedContextOverflowIsATruncatedStream() throws {
        let (error, _) = try failure([.send(try RecordedStreams.captured("error-context-exceeded"))])
        #expect(error?.code == .truncatedStream)
    }

    /// Captured: a body the server cannot read gets a bare 500 in text/plain.
    @Test func capturedInternalServerErrorIsAProviderStatus() throws {
        let (error, _) = try failure([.send(try RecordedStreams.captured("error-malformed-body"))])
        #expect(error?.code == .providerStatus)
        #expect(error?.message.contains("500") == true)
    }

    /// Captured: llama-cpp-python cuts a streaming answer short when another request arrives (its
    /// default): text, then `[DONE]` with no finish reason. An answer cut short, not an answer.
    @Test func capturedInterruptedStreamIsATruncatedStream() throws {
        let (error, _) = try failure([.send(try RecordedStreams.captured("stream-interrupted"))])
        #expect(error?.code == .truncatedStream)
        #expect(error?.message.contains("finish reason") == true)
    }

    /// Captured, cut: the real stream with its connection closed in the middle.
    @Test func capturedStreamCutMidwayIsATruncatedStream() throws {
        let bytes = try RecordedStreams.captured("stream-chat")
        let (error, _) = try failure([.send(Array(bytes.prefix(bytes.count / 2)))])
        #expect(error?.code == .truncatedStream)
    }

    @Test func droppedInTheMiddleOfAnEventIsATruncatedStream() throws {
        let body = "data: " + RecordedStreams.llamaCpp[1] + "\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half"
        let (error, _) = try failure([.send(Wire.head(200, ["Content-Type: text/event-stream"]) + Array(body.utf8))])
        #expect(error?.code == .truncatedStream)
    }

    @Test func tooManyRequestsSaysSoWithoutTheServersText() throws {
        let body = #"{"error":{"message":"\#(Self.secretEcho)","type":"rate_limit_exceeded","code":429}}"#
        let (error, _) = try failure(Wire.json(429, body))
        #expect(error?.code == .providerStatus)
        #expect(error?.message.contains("429") == true)
        #expect(error?.message.contains("rate_limit_exceeded") == true)
        #expect(error?.message.contains(Self.secretEcho) == false)
    }

    @Test func internalServerErrorIsAProviderStatus() throws {
        let (error, _) = try failure(Wire.json(500, #"{"error":{"message":"\#(Self.secretEcho)","type":"server_error"}}"#))
        #expect(error?.code == .providerStatus)
        #expect(error?.message.contains("500") == true)
        #expect(error?.message.contains(Self.secretEcho) == false)
    }

    @Test func ollamaNotFoundIsAProviderStatus() throws {
        let (error, _) = try failure(Wire.json(404, #"{"error":"model \"\#(Self.secretEcho)\" not found, try pulling it first"}"#), kind: .ollama)
        #expect(error?.code == .providerStatus)
        #expect(error?.message.contains(Self.secretEcho) == false)
    }

    @Test func malformedChunkIsRefused() throws {
        let (error, _) = try failure(Wire.chunkedEvents([RecordedStreams.llamaCpp[0], #"{"choices":[{"index":0,"delta":{"content":"x"}"#, "[DONE]"]))
        #expect(error?.code == .malformedStream)
    }

    @Test func choicesOfTheWrongTypeAreRefused() throws {
        let (error, _) = try failure(Wire.chunkedEvents([#"{"choices":{"index":0}}"#, "[DONE]"]))
        #expect(error?.code == .malformedStream)
    }

    @Test func errorEventInTheMiddleOfA200Stream() throws {
        let (error, _) = try failure(Wire.chunkedEvents([RecordedStreams.vllm[1],
            #"{"error":{"object":"error","message":"\#(Self.secretEcho)","type":"BadRequestError","param":null,"code":400}}"#]))
        #expect(error?.code == .providerError)
        #expect(error?.message.contains("BadRequestError") == true)
        #expect(error?.message.contains(Self.secretEcho) == false)
    }

    @Test func ollamaLineWithoutDoneAtTheEndIsATruncatedStream() throws {
        let (error, _) = try failure(RecordedStreams.ndjson(Array(RecordedStreams.ollamaNative.prefix(2))), kind: .ollama)
        #expect(error?.code == .truncatedStream)
    }

    @Test func tenMegabyteAnswerIsRefusedAtItsBound() throws {
        // One event of 10 MB: refused at the line bound (1 MiB), long before the body bound.
        let prefix = Wire.head(200, ["Content-Type: text/event-stream", "Content-Length: \(10_000_030)"]) + Array(#"data: {"choices":[{"delta":{"content":""#.utf8)
        let (error, elapsed) = try failure([.sendRepeated(prefix: prefix, byte: UInt8(ascii: "a"), count: 10_000_000)])
        #expect(error?.code == .responseTooLarge)
        #expect(elapsed < .seconds(5))
    }

    @Test func tenMegabyteAnswerOfSmallEventsIsRefusedAtTheBodyBound() throws {
        let event = Array(("data: " + #"{"choices":[{"index":0,"delta":{"content":"\#(String(repeating: "word ", count: 190))"}}]}"# + "\n\n").utf8)
        let count = 10_000_000 / event.count
        let steps: [ReplayServer.Step] = [.send(Wire.head(200, ["Content-Type: text/event-stream", "Content-Length: \(count * event.count)"]))]
            + (0..<count).map { _ in .send(event) }
        let (error, elapsed) = try failure(steps)
        #expect(error?.code == .responseTooLarge)
        #expect(elapsed < .seconds(10))
    }

    @Test func slowTrickleIsCutAtTheTotalTimeout() throws {
        // A byte every 400 ms never trips the 1 s idle bound; the 3 s total bound ends it.
        let head = Wire.head(200, ["Content-Type: text/event-stream", "Transfer-Encoding: chunked"])
        let trickle = (0..<40).flatMap { _ in [ReplayServer.Step.send(Wire.chunk(": still here\n")), .pause(milliseconds: 400)] }
        let (error, elapsed) = try failure([.send(head)] + trickle)
        #expect(error?.code == .timedOut)
        #expect(error?.message.contains("in all") == true)
        #expect(elapsed >= .seconds(3) && elapsed < .seconds(6))
    }

    @Test func silentServerIsCutAtTheFirstByteTimeout() throws {
        let (error, elapsed) = try failure([.pause(milliseconds: 5000)])
        #expect(error?.code == .timedOut)
        #expect(elapsed < .seconds(4))
    }

    @Test func headWithBareLineFeedsIsMalformed() throws {
        let (error, _) = try failure([.send(Array("HTTP/1.1 200 OK\nContent-Length: 2\n\nhi".utf8))])
        #expect(error?.code == .malformedResponse)
    }

    @Test func nothingListeningIsAConnectionFailure() throws {
        let fixture = try AssistantFixture()
        let server = try ReplayServer { _ in [] }
        let provider = try fixture.provider(server)
        server.stop()
        let released = try fixture.released(AssistantFixture.chat, for: provider, from: try fixture.project())
        #expect(assistantErrorCode { _ = try makeProvider(provider, client: AssistantFixture.quickClient).complete(released) } == .connectionFailed)
    }
}
