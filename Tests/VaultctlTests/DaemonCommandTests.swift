import Appliance
import AuditChain
import CryptoVault
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `vaultctl serve` and `vaultctl session`: the daemon holds privileged sessions in memory and
/// answers its owner on a 0600 socket; `open` and `get` read through it; sessions expire and are
/// wiped; a killed daemon leaves no key behind; other users are refused.
@Suite("vaultctl serve: the daemon and its sessions", .serialized)
struct DaemonCommandTests {
    /// A vault with a privileged compartment holding one stored bundle and one bundle file.
    final class Fixture {
        let cli: BundleCLI
        let bundleID: String
        let bundleFile: String
        var daemon: CLI.Running?

        init() throws {
            cli = try BundleCLI()
            let created = try cli.run(["compartment", "create", "chart", "--register", "healthcare"])
            guard created.status == 0 else { throw CLIError(message: created.stderr) }
            let plaintext = try cli.randomFile("visit.txt", count: 300_000)
            let put = try cli.run(["put", "--compartment", "chart", plaintext])
            guard put.status == 0 else { throw CLIError(message: put.stderr) }
            bundleID = put.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            bundleFile = cli.file("visit.vbundle")
            let sealed = try cli.run(["seal", "--compartment", "chart", plaintext, "-o", bundleFile])
            guard sealed.status == 0 else { throw CLIError(message: sealed.stderr) }
        }

        deinit { if let daemon, daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }

        var socketPath: String { cli.directory + "/daemon.sock" }

        /// Starts `vaultctl serve` and waits until it says it listens.
        func serve(_ options: [String] = [], environment: [String: String]? = nil) throws -> CLI.Running {
            let running = try CLI.start(["serve", "--vault", cli.directory, "--passphrase-file", cli.passphraseFile] + options,
                                        environment: environment)
            daemon = running
            try Self.waitForListening(running)
            return running
        }

        static func waitForListening(_ running: CLI.Running) throws {
            for _ in 0..<200 {
                let output = String(decoding: FileManager.default.contents(atPath: running.outputPath) ?? Data(), as: UTF8.self)
                if output.contains("listening on") { return }
                guard running.process.isRunning else { throw CLIError(message: "serve exited: \(running.result().stderr)") }
                usleep(50_000)
            }
            throw CLIError(message: "serve did not start listening within 10 s")
        }

        /// Runs a command against the daemon (no passphrase given).
        func client(_ arguments: [String]) throws -> CLI.Result { try cli.run(arguments, unlock: false) }

        func stopDaemon() throws -> CLI.Result {
            guard let daemon else { throw CLIError(message: "no daemon") }
            kill(daemon.process.processIdentifier, SIGTERM)
            daemon.process.waitUntilExit()
            return daemon.result()
        }

        func auditEntries() throws -> [[String: Any]] {
            let log = try cli.run(["audit", "log", "--json", "--details"])
            return try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
        }

        /// The log with every entry's details, a privileged compartment's opened in a one-command session.
        func auditEntriesWithPrivilegedDetails() throws -> [[String: Any]] {
            let log = try cli.run(["audit", "log", "--json", "--details", "--purpose", "test: check the sessions' ends"])
            return try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
        }

        func actions() throws -> [String] { try auditEntries().compactMap { $0["action"] as? String } }
    }

    @Test("ls shows a privileged bundle's name only while the daemon holds a session of its compartment")
    func listingThroughTheDaemonSession() throws {
        let fixture = try Fixture()
        _ = try fixture.serve()
        let hidden = try fixture.cli.run(["ls"])
        #expect(hidden.status == 0 && hidden.stdout.contains("(privileged)") && !hidden.stdout.contains("visit.txt"), "\(hidden.stdout)\(hidden.stderr)")
        #expect(try fixture.client(["session", "start", "--compartment", "chart", "--purpose", "find the visit"]).status == 0)
        let shown = try fixture.cli.run(["ls"])
        #expect(shown.status == 0 && shown.stdout.contains("visit.txt") && !shown.stdout.contains("(privileged)"), "\(shown.stdout)\(shown.stderr)")
        #expect(try fixture.client(["session", "end", "--all"]).status == 0)
        let again = try fixture.cli.run(["ls"])
        #expect(again.stdout.contains("(privileged)") && !again.stdout.contains("visit.txt"), "\(again.stdout)")
    }

    @Test("the socket is 0600 and the owner's; a session lets get and open read through the daemon; ending it stops them")
    func sessionLifecycle() throws {
        let fixture = try Fixture()
        let cli = fixture.cli
        _ = try fixture.serve()
        var status = stat()
        #expect(stat(fixture.socketPath, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFSOCK && status.st_mode & 0o777 == 0o600 && status.st_uid == getuid())

        let refused = try fixture.client(["get", fixture.bundleID, "-o", cli.file("refused.txt")])
        #expect(refused.status == 77 && refused.stderr.contains("no session is open for compartment 'chart'"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.file("refused.txt")))

        let started = try fixture.client(["session", "start", "--compartment", "chart", "--purpose", "follow-up letter"])
        #expect(started.status == 0, "\(started.stderr)")
        let sessionID = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(sessionID.count == 32)

        let got = try fixture.client(["get", fixture.bundleID, "-o", cli.file("got.txt")])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try cli.bytes("got.txt") == cli.bytes("visit.txt"))
        let range = try fixture.client(["open", fixture.bundleFile, "--range", "100:200", "--session", String(sessionID.prefix(8)),
                                        "-o", cli.file("range.txt")])
        #expect(range.status == 0, "\(range.stderr)")
        #expect(try cli.bytes("range.txt") == Array(try cli.bytes("visit.txt")[100..<200]))

        let listed = try fixture.client(["session", "list", "--json"])
        let sessions = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(sessions.count == 1)
        #expect(sessions.first?["id"] as? String == sessionID)
        #expect(sessions.first?["bundles_read"] as? Int == 2)
        #expect(sessions.first?["bytes_read"] as? Int == 300_100)

        let ended = try fixture.client(["session", "end", sessionID])
        #expect(ended.status == 0, "\(ended.stderr)")
        let afterEnd = try fixture.client(["get", fixture.bundleID, "-o", cli.file("after.txt")])
        #expect(afterEnd.status == 77, "\(afterEnd.stderr)")
        let unknown = try fixture.client(["session", "end", sessionID])
        #expect(unknown.status == 77 && unknown.stderr.contains("no live session has the id"), "\(unknown.stderr)")

        let stopped = try fixture.stopDaemon()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.socketPath))
        let actions = try fixture.actions()
        let daemonActions = actions.filter { $0.hasPrefix("daemon.") || $0.hasPrefix("session.") }
        #expect(daemonActions == ["daemon.start", "session.start", "session.read", "session.read", "session.end", "daemon.stop"])
        #expect(try cli.run(["audit", "verify"], unlock: false).status == 0)
    }

    @Test("an idle session expires: its reads are refused, it leaves the list, and its end says why")
    func idleExpiry() throws {
        let fixture = try Fixture()
        _ = try fixture.serve(["--session-idle", "1"])
        let started = try fixture.client(["session", "start", "--compartment", "chart", "--purpose", "quick look"])
        #expect(started.status == 0, "\(started.stderr)")
        usleep(2_500_000)
        let expired = try fixture.client(["get", fixture.bundleID, "-o", fixture.cli.file("late.txt")])
        #expect(expired.status == 77, "\(expired.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.cli.file("late.txt")))
        #expect(try fixture.client(["session", "list"]).stdout.contains("No live sessions."))
        _ = try fixture.stopDaemon()
        let ends = try fixture.auditEntriesWithPrivilegedDetails().filter { $0["action"] as? String == "session.end" }
        #expect(ends.count == 1)
        #expect((ends.first?["details"] as? [String: String])?["reason"] == "idle-timeout", "\(ends)")
    }

    @Test("stopping the daemon ends every session, recorded as daemon-stopped")
    func stopEndsSessions() throws {
        let fixture = try Fixture()
        _ = try fixture.serve()
        #expect(try fixture.client(["session", "start", "--compartment", "chart", "--purpose", "one"]).status == 0)
        #expect(try fixture.client(["session", "start", "--compartment", "chart", "--purpose", "two"]).status == 0)
        let stopped = try fixture.stopDaemon()
        #expect(stopped.status == 0 && stopped.stderr.contains("every session ended"), "\(stopped.stderr)")
        let ends = try fixture.auditEntriesWithPrivilegedDetails().filter { $0["action"] as? String == "session.end" }
        #expect(ends.count == 2 && ends.allSatisfy { ($0["details"] as? [String: String])?["reason"] == "daemon-stopped" }, "\(ends)")
        let noDaemon = try fixture.client(["session", "list"])
        #expect(noDaemon.status == 69 && noDaemon.stderr.contains("no daemon serves this vault"), "\(noDaemon.stderr)")
    }

    @Test("a daemon killed mid-session leaves no key on disk and no core limit above zero; the next one starts")
    func killedDaemonLeavesNoKey() throws {
        let fixture = try Fixture()
        let cli = fixture.cli
        let scratch = cli.file("daemon-tmp")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch
        let daemon = try fixture.serve(environment: environment)
        #expect(try fixture.client(["session", "start", "--compartment", "chart", "--purpose", "read then crash"]).status == 0)
        #expect(try fixture.client(["get", fixture.bundleID, "-o", cli.file("read.txt")]).status == 0)

        let limits = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/limits", encoding: .utf8)
        let coreLine = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") } ?? ""
        #expect(coreLine.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2) == ["0", "0"], "\(coreLine)")

        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()

        let keys = try Self.compartmentKeys(cli)
        #expect(!keys.isEmpty)
        for path in Self.files(under: cli.root) where !path.hasSuffix("visit.txt") && !path.hasSuffix("read.txt") {
            let contents = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
            for key in keys { #expect(!Self.contains(contents, key), "a compartment key is in \(path)") }
        }
        #expect(!Self.files(under: cli.root).contains { $0.contains("core") })

        // The dead daemon's socket is replaced, and its entries are covered by the next checkpoint.
        _ = try fixture.serve()
        #expect(try fixture.client(["session", "list"]).stdout.contains("No live sessions."))
        _ = try fixture.stopDaemon()
        #expect(try cli.run(["audit", "verify"], unlock: false).status == 0)
    }

    /// Every key version of every compartment, read in this process as the vault's owner.
    static func compartmentKeys(_ cli: BundleCLI) throws -> [[UInt8]] {
        let unlocked = try Vault.open(at: cli.directory, journal: AuditLog(), modules: VaultModules.all).unlock(with: .passphrase(SecureBytes(copying: Array(CLIVault.passphrase.utf8))))
        return try unlocked.compartments().flatMap { compartment in
            try compartment.keyVersions.map { try unlocked.compartmentKey(for: compartment, version: $0.version).exposedCopy() }
        }
    }

    static func files(under root: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = root + "/" + name
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue { found.append(path) }
        }
        return found
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
