import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `vaultctl serve --console`: the daemon prints a one-time launch URL; the browser it signs in and
/// the CLI work on the same vault and the same privileged sessions.
@Suite("vaultctl serve --console", .serialized)
struct ConsoleCommandTests {
    @Test("the printed launch URL signs a browser in once; a project it makes is listed by the CLI, and a session the CLI starts opens a privileged project in the console")
    func consoleAndCLIShareTheVault() throws {
        let vault = try CLIVault()
        let serve = try CLI.start(["serve", "--console", "--vault", vault.directory, "--passphrase-file", vault.passphraseFile])
        defer { if serve.process.isRunning { kill(serve.process.processIdentifier, SIGTERM); serve.process.waitUntilExit() } }
        let url = try Self.launchURL(serve)
        let components = try #require(URLComponents(string: url))
        #expect(components.host == "127.0.0.1" && components.path == "/launch")
        let port = try #require(components.port.map(UInt16.init))
        let path = url.replacingOccurrences(of: "http://127.0.0.1:\(port)", with: "")
        let launched = try LoopbackHTTP.get(path, port: port)
        #expect(launched.status == 303)
        let cookie = try #require(launched.cookie("vault_console"))
        #expect(try LoopbackHTTP.get(path, port: port).status == 401)
        let signedIn = ["Cookie": "vault_console=\(cookie)"]
        let csrf = try #require((try LoopbackHTTP.get("/api/session", port: port, fields: signedIn).json as? [String: Any])?["csrf"] as? String)

        let body = Array(#"{"name":"Intake","register":"healthcare"}"#.utf8)
        let post = "POST /api/projects HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\nCookie: vault_console=\(cookie)\r\n"
            + "X-CSRF-Token: \(csrf)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        let created = try LoopbackHTTP.exchange(Array(post.utf8) + body, port: port)
        #expect(created.status == 201, "\(created.text)")
        let project = try #require((created.json as? [String: Any])?["id"] as? String)
        #expect(try LoopbackHTTP.get("/api/projects/\(project)", port: port, fields: signedIn).status == 423)

        // The CLI, through the daemon (no passphrase): the project is there, and its session opens it for the console too.
        let listed = try vault.run(["project", "list", "--json"], unlock: false)
        #expect(listed.status == 0 && listed.stdout.contains(project))
        let started = try vault.run(["session", "start", "--compartment", "project \(project)", "--purpose", "test: read the intake"], unlock: false)
        #expect(started.status == 0, "\(started.stderr)")
        let opened = try LoopbackHTTP.get("/api/projects/\(project)", port: port, fields: signedIn)
        #expect(opened.status == 200 && (opened.json as? [String: Any])?["name"] as? String == "Intake")
    }

    @Test("vaultctl console gets a new launch URL from the daemon after the printed one is spent; each works once; without a daemon or a console it exits 69 saying how")
    func newLaunchURLFromTheDaemon() throws {
        let vault = try CLIVault()
        let alone = try vault.run(["console"], unlock: false)
        #expect(alone.status == 69 && alone.stderr.contains("no daemon serves this vault") && alone.stderr.contains("serve --console"))

        let serve = try CLI.start(["serve", "--console", "--vault", vault.directory, "--passphrase-file", vault.passphraseFile])
        defer { if serve.process.isRunning { kill(serve.process.processIdentifier, SIGTERM); serve.process.waitUntilExit() } }
        let printed = try Self.launchURL(serve)
        let port = try #require(URLComponents(string: printed)?.port.map(UInt16.init))
        let local = { (url: String) in url.replacingOccurrences(of: "http://127.0.0.1:\(port)", with: "") }
        #expect(try LoopbackHTTP.get(local(printed), port: port).status == 303)
        let asked = try vault.run(["console", "--json"], unlock: false)
        #expect(asked.status == 0, "\(asked.stderr)")
        let fresh = try #require((try JSONSerialization.jsonObject(with: Data(asked.stdout.utf8)) as? [String: Any])?["url"] as? String)
        #expect(fresh != printed && fresh.hasPrefix("http://127.0.0.1:\(port)/launch?token="))
        #expect(try LoopbackHTTP.get(local(fresh), port: port).status == 303)
        #expect(try LoopbackHTTP.get(local(fresh), port: port).status == 401)
    }

    @Test("vaultctl console against a daemon started without --console exits 69 and says to restart it with --console")
    func daemonWithoutConsole() throws {
        let vault = try CLIVault()
        let serve = try CLI.start(["serve", "--vault", vault.directory, "--passphrase-file", vault.passphraseFile])
        defer { if serve.process.isRunning { kill(serve.process.processIdentifier, SIGTERM); serve.process.waitUntilExit() } }
        var result = try vault.run(["console"], unlock: false)
        for _ in 0..<100 where result.stderr.contains("no daemon serves") {   // until the daemon listens
            usleep(100_000)
            result = try vault.run(["console"], unlock: false)
        }
        #expect(result.status == 69 && result.stderr.contains("started without --console"), "\(result.stderr)")
    }

    @Test("--console-port without --console is a usage error")
    func portNeedsConsole() throws {
        let vault = try CLIVault()
        let result = try vault.run(["serve", "--console-port", "8080"])
        #expect(result.status == 64 && result.stderr.contains("--console-port needs --console"))
    }

    /// Waits for the daemon's "launch URL" line.
    static func launchURL(_ running: CLI.Running) throws -> String {
        for _ in 0..<400 {
            let output = String(decoding: FileManager.default.contents(atPath: running.outputPath) ?? Data(), as: UTF8.self)
            if let line = output.split(separator: "\n").first(where: { $0.contains("launch URL") }),
               let url = line.split(separator: " ").last, output.contains("listening on") {
                return String(url)
            }
            guard running.process.isRunning else { throw CLIError(message: "serve exited: \(running.result().stderr)") }
            usleep(50_000)
        }
        throw CLIError(message: "serve --console printed no launch URL within 20 s")
    }
}
