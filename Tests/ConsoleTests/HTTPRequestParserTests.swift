import Testing
@testable import Console

/// The request parser: what it takes, and every refusal with its reason (no request smuggling, no
/// unbounded read).
@Suite struct HTTPRequestParserTests {
    let parser = HTTPRequestParser()

    func head(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("a GET with a query and a POST with a body length parse into method, path, query, fields")
    func parsesWhatABrowserSends() throws {
        let (get, none) = try parser.parse(head: head("GET /api/audit?action=writing.&before=9 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nCookie: a=1; vault_console=xyz\r\n\r\n"))
        #expect(get.method == .get && get.path == "/api/audit" && get.query == "action=writing.&before=9" && none == 0)
        #expect(get.queryValue("action") == "writing." && get.cookie("vault_console") == "xyz" && get.field("host") == "127.0.0.1:8080")
        let (post, length) = try parser.parse(head: head("POST /api/projects HTTP/1.1\r\nHost: x\r\nContent-Length: 42\r\nContent-Type:  application/json \r\n\r\n"))
        #expect(post.method == .post && length == 42 && post.field("content-type") == "application/json" && post.isStateChanging)
    }

    @Test("malformed heads are refused, each for its reason", arguments: [
        ("GET / HTTP/1.1\nHost: x\n\n", ConsoleErrorCode.malformedRequest),                        // bare LF
        ("GET / HTTP/1.0\r\nHost: x\r\n\r\n", .malformedRequest),                                    // not 1.1
        ("GET  / HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequest),                                   // two spaces
        ("get / HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequest),                                    // lower-case method
        ("PATCH / HTTP/1.1\r\nHost: x\r\n\r\n", .unsupportedMethod),
        ("GET http://evil/ HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequest),                         // absolute form
        ("GET /a#b HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequest),                                 // fragment
        ("GET / HTTP/1.1\r\n\r\n", .malformedRequest),                                               // no Host
        ("GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", .malformedRequest),                         // two Hosts
        ("GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", .malformedRequest),                         // obs-fold
        ("GET / HTTP/1.1\r\nHost : x\r\n\r\n", .malformedRequest),                                   // space before colon
        ("GET / HTTP/1.1\r\nHost: x\r\nX: a\u{1}b\r\n\r\n", .malformedRequest),                      // control byte
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", .unsupportedEncoding),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", .malformedRequest),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\n", .malformedRequest),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n", .malformedRequest),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 16777217\r\n\r\n", .bodyTooLarge),
        ("GET / HTTP/1.1\r\nHost: x\r\n", .malformedRequest),                                        // no blank line
    ])
    func refuses(_ text: String, _ expected: ConsoleErrorCode) {
        #expect(code { try parser.parse(head: head(text)) } == expected)
    }

    @Test("a head over its bound, too many fields or too long a target are refused as such")
    func bounds() {
        let longTarget = "GET /" + String(repeating: "a", count: 5000) + " HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(code { try parser.parse(head: head(longTarget)) } == .targetTooLong)
        let manyFields = "GET / HTTP/1.1\r\nHost: x\r\n" + (0..<70).map { "X-\($0): 1\r\n" }.joined() + "\r\n"
        #expect(code { try parser.parse(head: head(manyFields)) } == .headTooLarge)
        let huge = "GET / HTTP/1.1\r\nHost: x\r\nX: " + String(repeating: "a", count: 17_000) + "\r\n\r\n"
        #expect(code { try parser.parse(head: head(huge)) } == .headTooLarge)
    }

    func code(_ body: () throws -> Any) -> ConsoleErrorCode? {
        do { _ = try body(); return nil } catch let error as ConsoleError { return error.code } catch { return nil }
    }
}
