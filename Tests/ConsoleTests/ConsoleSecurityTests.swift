import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Console

/// The local web server's safety (issue 16, SECURITY.md §16.4), each refusal with its reason, over
/// a real loopback connection.
@Suite struct ConsoleSecurityTests {
    @Test("a launch token signs one browser in once; a spent or made-up token is refused")
    func launchTokenIsOneTime() throws {
        let fixture = try ConsoleFixture(signIn: false)
        let launch = try fixture.console.launchURL()
        let path = String(launch.dropFirst("http://\(fixture.host)".count))
        let first = try fixture.send(get: path)
        #expect(first.status == 303 && first.field("location") == "/")
        let cookie = try #require(first.field("set-cookie"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
        let again = try fixture.send(get: path)
        #expect(again.status == 401 && again.errorCode == "unauthenticated" && again.field("set-cookie") == nil)
        let madeUp = try fixture.send(get: "/launch?token=" + String(repeating: "ab", count: 32))
        #expect(madeUp.status == 401)
        #expect(fixture.actions.filter { $0 == "console.sign-in" }.count == 1)
    }

    @Test("an unspent launch URL expires, and only the newest 4 wait: a fifth drops the oldest")
    func launchTokensExpireAndAreCapped() throws {
        let hand = MonotonicHand()
        let credentials = ConsoleCredentials(launchLifetime: .seconds(300), clock: hand.clock)
        let tokens = try (0..<5).map { _ in try credentials.newLaunchToken() }
        #expect(try credentials.exchange(launchToken: tokens[0]) == nil)      // dropped by the fifth
        #expect(try credentials.exchange(launchToken: tokens[1]) != nil)
        hand.advance(299)
        #expect(try credentials.exchange(launchToken: tokens[2]) != nil)      // not yet
        hand.advance(1)
        #expect(try credentials.exchange(launchToken: tokens[3]) == nil)      // expired
        #expect(try credentials.exchange(launchToken: try credentials.newLaunchToken()) != nil)
    }

    @Test("a browser session ends 12 hours after it began, on the console's clock")
    func browserSessionsExpire() throws {
        let hand = MonotonicHand()
        let credentials = ConsoleCredentials(clock: hand.clock)
        let cookie = try #require(try credentials.exchange(launchToken: try credentials.newLaunchToken()))
        hand.advance(12 * 3600 - 1)
        #expect(credentials.session(cookie: cookie) != nil)
        hand.advance(1)
        #expect(credentials.session(cookie: cookie) == nil)
    }

    @Test("without the session cookie the API answers 401 and shows nothing")
    func apiNeedsTheCookie() throws {
        let fixture = try ConsoleFixture()
        let response = try fixture.request("GET", "/api/projects", overrides: ["Cookie": ""])
        #expect(response.status == 401 && response.errorCode == "unauthenticated")
        let forged = try fixture.request("GET", "/api/projects", overrides: ["Cookie": "vault_console=" + String(repeating: "00", count: 32)])
        #expect(forged.status == 401)
    }

    @Test("Host: evil.example (DNS rebinding) is refused, whatever the cookie")
    func foreignHostIsRefused() throws {
        let fixture = try ConsoleFixture()
        for host in ["evil.example", "evil.example:\(fixture.port)", "127.0.0.1", "127.0.0.1:1"] {
            let response = try fixture.request("GET", "/api/projects", overrides: ["Host": host])
            #expect(response.status == 403 && response.errorCode == "forbiddenOrigin", "Host \(host)")
        }
        let page = try fixture.request("GET", "/", overrides: ["Host": "evil.example"])
        #expect(page.status == 403)
        #expect(try fixture.request("GET", "/api/projects", overrides: ["Host": "localhost:\(fixture.port)"]).status == 200)
    }

    @Test("a cross-origin POST is refused: another Origin, no Origin, or a cross-site fetch")
    func crossOriginPostIsRefused() throws {
        let fixture = try ConsoleFixture()
        let body: [String: Any] = ["name": "Injected", "register": "fiction"]
        let foreign = try fixture.request("POST", "/api/projects", json: body, overrides: ["Origin": "http://evil.example"])
        #expect(foreign.status == 403 && foreign.errorCode == "forbiddenOrigin")
        let noOrigin = try fixture.request("POST", "/api/projects", json: body, overrides: ["Origin": ""])
        #expect(noOrigin.status == 403 && noOrigin.errorCode == "forbiddenOrigin")
        let crossSite = try fixture.request("POST", "/api/projects", json: body, overrides: ["Sec-Fetch-Site": "cross-site"])
        #expect(crossSite.status == 403 && crossSite.errorCode == "forbiddenOrigin")
        #expect((try fixture.json("GET", "/api/projects") as? [Any])?.isEmpty == true)
    }

    @Test("a state-changing request without the CSRF token, or with another's, is refused and changes nothing")
    func csrfTokenIsRequired() throws {
        let fixture = try ConsoleFixture()
        let body: [String: Any] = ["name": "Injected", "register": "fiction"]
        let missing = try fixture.request("POST", "/api/projects", json: body, overrides: ["X-CSRF-Token": ""])
        #expect(missing.status == 403 && missing.errorCode == "missingCSRFToken")
        let wrong = try fixture.request("POST", "/api/projects", json: body, overrides: ["X-CSRF-Token": String(repeating: "11", count: 32)])
        #expect(wrong.status == 403 && wrong.errorCode == "missingCSRFToken")
        #expect((try fixture.json("GET", "/api/projects") as? [Any])?.isEmpty == true)
        #expect(try fixture.request("POST", "/api/projects", json: body).status == 201)
    }

    @Test("a cookie from before a restart opens nothing after it")
    func stolenCookieDiesWithTheDaemon() throws {
        let fixture = try ConsoleFixture()
        let stolen = fixture.cookie
        fixture.console.stop()
        let restarted = try ConsoleApp(vault: fixture.unlocked, sessions: fixture.sessions, limits: .standard)
        restarted.start()
        defer { restarted.stop() }
        let replay = ConsoleReplay(port: restarted.server.port, cookie: stolen)
        let response = try replay.get("/api/projects")
        #expect(response.status == 401 && response.errorCode == "unauthenticated")
    }

    @Test("every response forbids outside resources, inline script, framing and caching")
    func protectiveHeaders() throws {
        let fixture = try ConsoleFixture()
        for path in ["/", "/app.js", "/api/projects", "/no-such-page"] {
            let response = try fixture.send(get: path)
            let policy = try #require(response.field("content-security-policy"), "\(path)")
            #expect(policy.hasPrefix("default-src 'self'") && !policy.contains("unsafe") && policy.contains("frame-ancestors 'none'"))
            #expect(response.field("cache-control") == "no-store" && response.field("x-content-type-options") == "nosniff")
            #expect(response.field("x-frame-options") == "DENY" && response.field("connection") == "close")
        }
    }

    @Test("a client that sends half a head is cut off with 408; one that says it will send too much, 413")
    func slowAndLargeClients() throws {
        var limits = HTTPLimits()
        limits.headSeconds = 0.5
        let server = try HTTPServer(limits: limits)
        server.start { _ in HTTPResponse(status: 200) }
        defer { server.stop() }
        let socket = try ConsoleFixture.connect(port: server.port)
        defer { close(socket) }
        let partial = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)
        _ = partial.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        try #require(count > 0)
        #expect(try RawResponse(Array(buffer[..<count])).status == 408)
        let fixture = try ConsoleFixture()
        let tooLarge = try fixture.raw(Array("POST /api/projects HTTP/1.1\r\nHost: \(fixture.host)\r\nContent-Length: 99999999\r\n\r\n".utf8))
        #expect(tooLarge.status == 413)
    }
}

/// A client replaying a cookie against a console, as someone who copied it would.
struct ConsoleReplay {
    let port: UInt16
    let cookie: String

    func get(_ path: String) throws -> RawResponse {
        try LoopbackHTTP.get(path, port: port, fields: ["Cookie": "vault_console=\(cookie)"])
    }
}

#if canImport(Glibc)
import Glibc
#endif

