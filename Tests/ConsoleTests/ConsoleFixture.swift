import Appliance
import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import TestSupport
@testable import Console
#if canImport(Glibc)
import Glibc
#endif

/// A vault with the writing model, a console serving it on a free loopback port, and a signed-in
/// browser's cookie and CSRF token; `send` speaks raw HTTP to it, as a browser or an attacker would.
final class ConsoleFixture {
    let root = NSTemporaryDirectory() + "console-test-\(UUID().uuidString)"
    let unlocked: UnlockedVault
    let sessions = SessionRegistry()
    let console: ConsoleApp
    var cookie = ""
    var csrf = ""

    init(signIn: Bool = true, clock: VaultClock = .system) throws {
        // The real audit log, so what the console does is read back from the log an auditor verifies.
        unlocked = try Vault.create(at: root + "/vault", passphrase: try TestVault.secret("correct horse battery staple"),
                                    kdf: TestVault.fastKDF, journal: AuditLog(), modules: VaultModules.all)
        console = try ConsoleApp(vault: unlocked, sessions: sessions, limits: .standard, clock: clock)
        console.start()
        if signIn { try self.signIn() }
    }

    deinit {
        _ = sessions.endAll(reason: .daemonStopped)
        console.stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The actions in the vault's audit log, in order.
    var actions: [String] { ((try? AuditLogReader(vault: unlocked.vault).entries()) ?? []).map(\.action) }

    var port: UInt16 { console.server.port }
    var host: String { "127.0.0.1:\(port)" }

    func signIn() throws {
        let launch = try console.launchURL()
        let response = try send(get: String(launch.dropFirst("http://\(host)".count)))
        guard response.status == 303, let setCookie = response.field("set-cookie"),
              let value = setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last else {
            throw FixtureError("the launch did not sign in: \(response.status)")
        }
        cookie = String(value)
        csrf = try jsonObject(of: try send(get: "/api/session"))["csrf"] as? String ?? ""
    }

    /// A request as the console's page makes it (its Host, Origin, cookie and CSRF token), with
    /// `overrides` replacing or (with an empty value) removing fields.
    func request(_ method: String, _ path: String, json: Any? = nil, overrides: [String: String] = [:]) throws -> RawResponse {
        var fields: [String: String] = ["Host": host, "Cookie": "vault_console=\(cookie)", "Sec-Fetch-Site": "same-origin"]
        if method != "GET" {
            fields["Origin"] = "http://\(host)"
            fields["X-CSRF-Token"] = csrf
        }
        var body: [UInt8] = []
        if let json {
            body = Array(try JSONSerialization.data(withJSONObject: json))
            fields["Content-Type"] = "application/json"
        }
        for (name, value) in overrides { fields[name] = value.isEmpty ? nil : value }
        var head = "\(method) \(path) HTTP/1.1\r\n"
        for (name, value) in fields { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method != "GET" { head += "Content-Length: \(body.count)\r\n" }
        return try raw(Array((head + "\r\n").utf8) + body)
    }

    func send(get path: String) throws -> RawResponse { try request("GET", path) }

    /// The JSON a successful request answered.
    func json(_ method: String, _ path: String, _ body: Any? = nil) throws -> Any {
        let response = try request(method, path, json: body)
        guard (200..<300).contains(response.status) else { throw FixtureError("\(method) \(path): \(response.status) \(response.text)") }
        return try JSONSerialization.jsonObject(with: Data(response.body))
    }

    /// Sends `bytes` on a new connection and reads the response until the server closes it.
    func raw(_ bytes: [UInt8]) throws -> RawResponse { try LoopbackHTTP.exchange(bytes, port: port) }

    static func connect(port: UInt16) throws -> Int32 { try LoopbackHTTP.connect(port: port) }
}

func jsonObject(of response: RawResponse) throws -> [String: Any] {
    guard response.status == 200, let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
        throw FixtureError("expected a JSON object, got \(response.status) \(response.text)")
    }
    return object
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

typealias RawResponse = HTTPReply
