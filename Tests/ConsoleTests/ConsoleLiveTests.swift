import Foundation
import Testing
import TestSupport
@testable import Console
#if canImport(Glibc)
import Glibc
#endif

/// Live updates (server-sent events): a change made outside the page reaches it as an event naming
/// what changed, never its text.
@Suite struct ConsoleLiveTests {
    @Test("a write to a document is announced on /api/events with the document's id and no text; a search is not")
    func changesAreAnnounced() throws {
        let fixture = try ConsoleFixture()
        let project = try #require((try fixture.json("POST", "/api/projects", ["name": "Book", "register": "fiction"]) as? [String: Any])?["id"] as? String)
        let node = try #require((try fixture.json("POST", "/api/projects/\(project)/nodes", ["kind": "scene", "title": "Arrival"]) as? [String: Any])?["id"] as? String)
        let socket = try LoopbackHTTP.connect(port: fixture.port)
        defer { close(socket) }
        let request = "GET /api/events HTTP/1.1\r\nHost: \(fixture.host)\r\nCookie: vault_console=\(fixture.cookie)\r\n\r\n"
        _ = Array(request.utf8).withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let head = try Self.read(socket, until: "retry: 2000")
        #expect(head.contains("HTTP/1.1 200") && head.contains("Content-Type: text/event-stream") && !head.contains("Content-Length"))
        _ = try fixture.json("GET", "/api/projects/\(project)/search?q=dawn")
        _ = try fixture.json("PUT", "/api/projects/\(project)/documents/\(node)", ["blocks": [["kind": "paragraph", "text": "The boat came in at dawn."]]])
        let event = try Self.read(socket, until: node)
        #expect(event.contains("event: change") && !event.contains("dawn"))
    }

    @Test("the API refuses the events stream without the cookie")
    func eventsNeedTheCookie() throws {
        let fixture = try ConsoleFixture()
        let response = try LoopbackHTTP.get("/api/events", port: fixture.port)
        #expect(response.status == 401)
    }

    /// What the socket gives until `marker` appears (at most 10 s).
    static func read(_ socket: Int32, until marker: String) throws -> String {
        var received = ""
        let deadline = Date().addingTimeInterval(10)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains(marker) {
            guard Date() < deadline else { throw FixtureError("no '\(marker)' within 10 s; got \(received)") }
            var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 500) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw FixtureError("the stream closed; got \(received)") }
            received += String(decoding: buffer[..<count], as: UTF8.self)
        }
        return received
    }
}
