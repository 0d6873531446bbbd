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

    init(signIn: Bool = true) throws {
        // The real audit log, so what the console does is read back from the log an auditor verifies.
        unlocked = try Vault.create(at: root + "/vault", passphrase: try TestVault.secret("correct horse battery staple"),
                                    kdf: TestVault.fastKDF, journal: AuditLog(), modules: VaultModules.all)
        console = try ConsoleApp(vault: unlocked, sessions: sessions, limits: .standard)
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
    func raw(_ bytes: [UInt8], pauseAfterSending: Bool = false) throws -> RawResponse {
        let socket = try Self.connect(port: port)
        defer { close(socket) }
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return try RawResponse(received)
    }

    static func connect(port: UInt16) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(INADDR_LOOPBACK).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw FixtureError("connect failed") }
        return socket
    }
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

/// A response as it came over the wire.
struct RawResponse {
    let status: Int
    let fields: [(String, String)]
    let body: [UInt8]

    init(_ bytes: [UInt8]) throws {
        guard let end = HTTPConnection.endOfHead(in: bytes) else { throw FixtureError("no response head in \(bytes.count) bytes") }
        let lines = String(decoding: bytes[..<(end - 4)], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw FixtureError("bad status line \(lines[0])") }
        self.status = status
        fields = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        body = Array(bytes[end...])
    }

    func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }
    var text: String { String(decoding: body, as: UTF8.self) }
    var errorCode: String? { (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["error"] as? String }
}
