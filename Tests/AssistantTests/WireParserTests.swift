@testable import Assistant
import Testing

/// The strict parsers of the client: the response head, chunked framing, server-sent events and
/// NDJSON lines, each fed whole and byte by byte, and each refusing what its grammar refuses.
@Suite struct WireParserTests {
    static func head(_ text: String) throws -> HTTPResponseHead { try HTTPResponseHead(parsing: Array(text.utf8)) }

    @Test func headFramings() throws {
        #expect(try Self.head("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n").framing == .length(12))
        #expect(try Self.head("HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n").framing == .chunked)
        #expect(try Self.head("HTTP/1.0 200 OK\r\n\r\n").framing == .untilClose)
        #expect(try Self.head("HTTP/1.1 204 No Content\r\n\r\n").framing == .length(0))
        #expect(try Self.head("HTTP/1.1 429\r\nRetry-After: 3\r\n\r\n").value("retry-after") == "3")
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", AssistantErrorCode.malformedResponse),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", .malformedResponse),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", .malformedResponse),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1234567890123456\r\n\r\n", .malformedResponse),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .malformedResponse),
        ("HTTP/1.1 099 Early\r\n\r\n", .malformedResponse),
        ("HTTP/2 200 OK\r\n\r\n", .malformedResponse),
        ("HTTP/1.1 200 OK\nContent-Length: 1\r\n\r\n", .malformedResponse),
        ("HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n", .malformedResponse),
        ("HTTP/1.1 200 OK\r\nBad Name: a\r\n\r\n", .malformedResponse),
        ("HTTP/1.1 200 OK\r\nX: a\u{1}b\r\n\r\n", .malformedResponse),
    ])
    func headRefusals(text: String, code: AssistantErrorCode) {
        #expect(assistantErrorCode { _ = try Self.head(text) } == code)
    }

    @Test func headOverItsBoundsIsRefused() {
        let many = "HTTP/1.1 200 OK\r\n" + (0..<65).map { "X-\($0): y\r\n" }.joined() + "\r\n"
        #expect(assistantErrorCode { _ = try Self.head(many) } == .responseTooLarge)
        let long = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 17000) + "\r\n\r\n"
        #expect(assistantErrorCode { _ = try Self.head(long) } == .responseTooLarge)
    }

    @Test func chunkedBodyWholeAndByteByByte() throws {
        let body = Array("5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n".utf8)
        var whole = ChunkedDecoder()
        #expect(try whole.feed(body[...]) == Array("hello world".utf8))
        #expect(whole.isFinished)
        var split = ChunkedDecoder()
        var out: [UInt8] = []
        for byte in body { out += try split.feed([byte][...]) }
        #expect(out == Array("hello world".utf8))
        #expect(split.isFinished)
    }

    @Test(arguments: ["g\r\nx\r\n0\r\n\r\n", "123456789\r\n", "5\r\nhelloX\r\n", "5\nhello\r\n", "0\r\n\r\nextra", "\r\n"])
    func chunkedRefusals(text: String) {
        var decoder = ChunkedDecoder()
        let code = assistantErrorCode { _ = try decoder.feed(Array(text.utf8)[...]) }
        #expect(code == .malformedResponse)
    }

    @Test func serverSentEventsLineEndingsCommentsAndMultilineData() throws {
        let stream = "\u{FEFF}: comment\r\nevent: delta\rdata: one\ndata:two\r\nid: 7\nretry: 10\nunknown: x\n\ndata: [DONE]\n\n"
        var whole = ServerSentEvents()
        let events = try whole.feed(Array(stream.utf8))
        #expect(events == [.init(name: "delta", data: "one\ntwo"), .init(name: "message", data: "[DONE]")])
        var split = ServerSentEvents()
        var byByte: [ServerSentEvents.Event] = []
        for byte in Array(stream.utf8) { byByte += try split.feed([byte]) }
        #expect(byByte == events)
        #expect(!split.isMidEvent)
    }

    @Test func serverSentEventsBounds() {
        var events = ServerSentEvents()
        #expect(assistantErrorCode { _ = try events.feed([UInt8](repeating: 0x61, count: ServerSentEvents.maximumLineBytes + 1)) } == .responseTooLarge)
        var invalid = ServerSentEvents()
        #expect(assistantErrorCode { _ = try invalid.feed(Array("data: ".utf8) + [0xFF, 0x0A, 0x0A]) } == .malformedStream)
    }

    @Test func ndjsonLines() throws {
        var lines = NDJSONLines()
        #expect(try lines.feed(Array("{\"a\":1}\r\n\n  \n{\"b\"".utf8)) == ["{\"a\":1}"])
        #expect(lines.isMidLine)
        #expect(try lines.feed(Array(":2}\n".utf8)) == ["{\"b\":2}"])
        #expect(try lines.finish() == nil)
        var invalid = NDJSONLines()
        #expect(assistantErrorCode { _ = try invalid.feed([0xC0, 0x80, 0x0A]) } == .malformedStream)
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080", HTTPEndpoint.Reach.loopback, "/"),
        ("http://localhost:11434/", .loopback, "/"),
        ("http://[::1]:8000/v1", .loopback, "/v1"),
        ("http://192.168.1.20:8080", .privateNetwork, "/"),
        ("http://10.0.0.7", .privateNetwork, "/"),
        ("http://172.20.1.1:9000/api", .privateNetwork, "/api"),
    ])
    func endpointsWeMayReach(url: String, reach: HTTPEndpoint.Reach, path: String) throws {
        let endpoint = try HTTPEndpoint(parsing: url)
        #expect(endpoint.reach == reach)
        #expect((endpoint.basePath.isEmpty ? "/" : endpoint.basePath) == path)
    }

    @Test(arguments: ["https://127.0.0.1", "http://8.8.8.8", "http://api.example.com", "http://user:pw@127.0.0.1", "http://172.32.0.1",
                      "http://127.0.0.1:0", "http://127.0.0.1:99999", "http://127.0.0.1/a?b", "ftp://127.0.0.1", "http://[2001:db8::1]"])
    func endpointsRefused(url: String) {
        #expect(assistantErrorCode { _ = try HTTPEndpoint(parsing: url) } == .invalidEndpoint)
    }

    @Test func transcriptRoundTripAndRefusals() throws {
        let request = ChatRequest(messages: [.system("s"), .user(PromptText("line one\nline two \u{1E} x")),
                                             ChatMessage(.assistant, PromptText(""), toolCalls: [ToolCall(id: "c1", name: "t", arguments: "{}")]),
                                             ChatMessage(.tool, PromptText("result"), toolCallID: "c1")],
                                  tools: [ToolDefinition(name: "t", description: "d", parametersSchema: "{\"type\":\"object\"}")], maximumTokens: 64)
        let parsed = try ChatTranscript(parsing: ChatTranscript.encode(request))
        #expect(parsed.messages.map(\.content) == ["s", "line one\nline two   x", "", "result"])
        #expect(parsed.messages[2].toolCalls == [ToolCall(id: "c1", name: "t", arguments: "{}")])
        #expect(parsed.messages[3].toolCallID == "c1")
        #expect(parsed.tools.map(\.name) == ["t"])
        #expect(parsed.maximumTokens == 64)
        for bad in ["chat-v1", "chat-v2\u{1E}user\u{1F}x", "chat-v1\u{1E}user x", "chat-v1\u{1E}robot\u{1F}x", "chat-v1\u{1E}calls\u{1F}[]",
                    "chat-v1\u{1E}user\u{1F}a\u{1F}b"] {
            #expect(assistantErrorCode { _ = try ChatTranscript(parsing: Array(bad.utf8)) } == .invalidTranscript, "\(bad)")
        }
    }
}
