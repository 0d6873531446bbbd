import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// While `vaultctl serve` runs, the commands that need the unlocked vault run in the daemon
/// (SECURITY.md §10.8): no passphrase is asked, each request is an audit entry with the client's
/// uid, and privileged content still opens only in a live session of its compartment.
@Suite("vaultctl serve: commands that need the vault run in the daemon", .serialized)
struct DaemonForwardingTests {
    typealias Fixture = DaemonCommandTests.Fixture

    /// Runs vaultctl in a session of its own (no controlling terminal: a passphrase prompt fails at
    /// once, exit 64), in `directory`, with standard input from the file `stdin`.
    static func withoutTerminal(_ arguments: [String], in directory: String, stdin: String) throws -> CLI.Result {
        let script = #"cd "$1" && bin="$2" && input="$3" && shift 3 && setsid -w "$bin" "$@" <"$input""#
        let running = try CLI.start(["-c", script, "bash", directory, CLI.binary, stdin] + arguments, executable: "/bin/bash")
        running.process.waitUntilExit()
        return running.result()
    }

    @Test("with the daemon serving, put (a relative path and stdin), ls, compartment, egress and audit log run with no terminal and no passphrase; without it they ask and fail")
    func commandsRunInTheDaemonWithoutAPassphrase() throws {
        let fixture = try Fixture()
        let cli = fixture.cli
        _ = try fixture.serve()
        let vault = ["--vault", cli.directory]
        try Data("memo for the partners\n".utf8).write(to: URL(fileURLWithPath: cli.file("memo.txt")))
        let run = { (arguments: [String], stdin: String) throws -> CLI.Result in
            try Self.withoutTerminal(arguments + vault, in: cli.file(""), stdin: stdin)
        }

        let created = try run(["compartment", "create", "Memos", "--register", "general"], "/dev/null")
        #expect(created.status == 0 && created.stdout.contains("Created compartment 'Memos'"), "\(created.stderr)")
        let relative = try run(["put", "--compartment", "Memos", "memo.txt"], "/dev/null")
        #expect(relative.status == 0, "\(relative.stderr)")
        let piped = try run(["put", "--compartment", "Memos", "--name", "piped.txt", "-"], cli.file("memo.txt"))
        #expect(piped.status == 0, "\(piped.stderr)")
        let listed = try run(["ls", "--compartment", "Memos", "--json"], "/dev/null")
        let rows = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(Set(rows.compactMap { $0["name"] as? String }) == ["memo.txt", "piped.txt"], "\(listed.stdout) \(listed.stderr)")
        #expect(try run(["compartment", "list", "--json"], "/dev/null").stdout.contains("\"Memos\""))
        #expect(try run(["compartment", "rotate", "Memos"], "/dev/null").status == 0)
        let egress = try run(["egress", "check", "--to", "model:summarizer", "--from", "Memos", "memo.txt"], "/dev/null")
        #expect(egress.status == 0 && egress.stdout.contains("Decision: allow"), "\(egress.stderr)")
        #expect(try run(["egress", "log", "--json"], "/dev/null").stdout.contains("model:summarizer"))
        let log = try run(["audit", "log", "--details", "--json"], "/dev/null")
        #expect(log.status == 0 && log.stdout.contains("appliance.request"), "\(log.stderr)")
        for result in [created, relative, piped, listed, egress, log] { #expect(!result.stderr.contains("assphrase"), "\(result.stderr)") }

        _ = try fixture.stopDaemon()
        let alone = try run(["ls"], "/dev/null")
        #expect(alone.status == 64 && alone.stderr.contains("no terminal to ask for the passphrase"), "\(alone.stderr)")
    }

    /// The commands the review found asking the passphrase again while serve ran (issue 12): each
    /// runs with no terminal (no passphrase can be asked) and is recorded as the daemon's request.
    @Test("with the daemon serving, rm, seal, audit hash (stdin), backup, conflicts, sync, ai tools|mcp, share, replicate, restore and device rename run in the daemon with no passphrase")
    func theRestOfTheUnlockedCommandsRunInTheDaemon() throws {
        let fixture = try Fixture()
        let cli = fixture.cli
        let vault = ["--vault", cli.directory]
        let device = try JSONSerialization.jsonObject(with: Data(try cli.run(["device", "--json"]).stdout.utf8)) as? [String: Any]
        let fingerprint = try #require(device?["fingerprint"] as? String)
        _ = try fixture.serve()
        try Data("memo for the partners\n".utf8).write(to: URL(fileURLWithPath: cli.file("memo.txt")))
        try Data("memo.txt\n".utf8).write(to: URL(fileURLWithPath: cli.file("value.txt")))
        // --vault goes before a "--" (after it, everything is the MCP server's command line).
        let run = { (arguments: [String], stdin: String) throws -> CLI.Result in
            let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
            return try Self.withoutTerminal(Array(arguments[..<end]) + vault + arguments[end...], in: cli.file(""), stdin: stdin)
        }
        #expect(try run(["compartment", "create", "Memos", "--register", "general"], "/dev/null").status == 0)
        let put = try run(["put", "--compartment", "Memos", "memo.txt"], "/dev/null")
        let stored = put.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // Succeed in the daemon: what each did is checked, not only its status.
        let sealed = try run(["seal", "--compartment", "Memos", "memo.txt", "-o", "memo.vbundle"], "/dev/null")
        #expect(sealed.status == 0 && FileManager.default.fileExists(atPath: cli.file("memo.vbundle")), "\(sealed.stderr)")
        let removed = try run(["rm", stored, "--yes", "--json"], "/dev/null")
        #expect(removed.status == 0 && removed.stdout.contains(stored), "\(removed.stderr)")
        let hashed = try run(["audit", "hash", "--field", "file"], cli.file("value.txt"))
        #expect(hashed.status == 0 && hashed.stdout.count > 60, "\(hashed.stderr)")
        let backup = try run(["backup", "-o", "vault.vaultbackup"], "/dev/null")
        #expect(backup.status == 0 && FileManager.default.fileExists(atPath: cli.file("vault.vaultbackup")), "\(backup.stderr)")
        let renamed = try run(["device", "rename", fingerprint, "desk-in-daemon"], "/dev/null")
        #expect(renamed.status == 0 && renamed.stdout.contains("desk-in-daemon"), "\(renamed.stderr)")
        for arguments in [["conflicts", "--json"], ["sync", "status", "--json"], ["sync", "pause"], ["sync", "resume"], ["ai", "tools", "--json"]] {
            let result = try run(arguments, "/dev/null")
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        // Refused in the daemon for what they name (no such device or server), not for a passphrase.
        let refusals: [[String]] = [
            ["sync", "now", "--peer", "nobody"], ["replicate", "--peer", "nobody"], ["restore", "--peer", "nobody"],
            ["share", "Memos", "--peer", "nobody", "--role", "viewer", "--address", "127.0.0.1:9"], ["share", "revoke", "Memos", "--peer", "nobody"],
            ["ai", "mcp", "rm", "nothing"], ["ai", "mcp", "add", "absent", "--", "/nonexistent/server"],
            ["recover", "push", "--peer", "nobody"], ["peers", "revoke", "--peer", "nobody"], ["peers", "trust", "--peer", "nobody", "mine"],
            ["peers", "ping", "--peer", "nobody"], ["audit", "witness", "--peer", "nobody", "--address", "127.0.0.1:9"],
        ]
        for arguments in refusals {
            let result = try run(arguments, "/dev/null")
            #expect(result.status != 0 && result.status != 64 && !result.stderr.contains("assphrase"), "\(arguments): \(result.status) \(result.stderr)")
        }
        _ = try fixture.stopDaemon()

        // The same hash computed here with the passphrase: the daemon read the client's standard input.
        let local = try cli.run(["audit", "hash", "--field", "file", "--value-file", cli.file("value.txt")])
        #expect(local.stdout == hashed.stdout, "\(local.stderr)")
        let requests = Set(try fixture.auditEntries().filter { $0["action"] as? String == "appliance.request" }
            .compactMap { ($0["details"] as? [String: String])?["request"] })
        for command in ["seal", "rm", "audit hash", "backup", "device rename", "conflicts", "sync status", "sync pause", "sync resume",
                        "ai tools", "sync now", "replicate", "restore", "share", "share revoke", "ai mcp rm", "ai mcp add",
                        "recover push", "peers revoke", "peers trust", "peers ping", "audit witness"] {
            #expect(requests.contains("command \(command)"), "\(command) did not go through the daemon: \(requests.sorted())")
        }
    }

    @Test("each request the daemon answers is an audit entry with the client's uid and pid and what it asked; a command given a credential runs in its own process")
    func eachRequestIsRecordedWithTheClientsUID() throws {
        let fixture = try Fixture()
        _ = try fixture.serve()
        #expect(try fixture.client(["compartment", "create", "Memos", "--register", "general"]).status == 0)
        #expect(try fixture.client(["ls"]).status == 0)
        let local = try fixture.cli.run(["compartment", "rotate", "Memos"])
        #expect(local.status == 0, "\(local.stderr)")
        _ = try fixture.stopDaemon()

        let requests = try fixture.auditEntries().filter { $0["action"] as? String == "appliance.request" }
        let details = requests.compactMap { $0["details"] as? [String: String] }
        #expect(details.map { $0["request"] ?? "" } == ["command compartment create", "command ls"], "\(details)")
        #expect(details.allSatisfy { $0["uid"] == "\(getuid())" && Int32($0["pid"] ?? "") ?? 0 > 0 }, "\(details)")
        let rotations = try fixture.auditEntries().filter { $0["action"] as? String == "compartment.rotate" }
        #expect(rotations.count == 1)
    }

    @Test("through the daemon, privileged content still needs a session: get is refused (77, no session), ls hides the name and audit log withholds the details until one is open")
    func privilegedContentStillNeedsASession() throws {
        let fixture = try Fixture()
        _ = try fixture.serve()
        let refused = try fixture.client(["get", fixture.bundleID, "-o", fixture.cli.file("out.txt")])
        #expect(refused.status == 77 && refused.stderr.contains("no session is open for compartment 'chart'"), "\(refused.stderr)")
        #expect(try fixture.client(["ls", "--json"]).stdout.contains("(privileged)"))
        let withheld = try fixture.client(["audit", "log", "--details", "--json", "--compartment", "chart"])
        let entries = try JSONSerialization.jsonObject(with: Data(withheld.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(!entries.isEmpty && entries.allSatisfy { $0["details_withheld"] as? Bool == true }, "\(withheld.stdout) \(withheld.stderr)")

        #expect(try fixture.client(["session", "start", "--compartment", "chart", "--purpose", "review"]).status == 0)
        #expect(try fixture.client(["ls", "--json"]).stdout.contains("visit.txt"))
        let opened = try fixture.client(["audit", "log", "--details", "--json", "--compartment", "chart"])
        let openedEntries = try JSONSerialization.jsonObject(with: Data(opened.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(!openedEntries.isEmpty && openedEntries.allSatisfy { $0["details_withheld"] == nil }, "\(opened.stdout)")
        #expect(openedEntries.contains { ($0["details"] as? [String: String])?["bytes"] == "300000" }, "\(opened.stdout)")
    }

    @Test("a destroy the daemon runs needs --yes (64): the daemon has no terminal of the client's to ask on")
    func confirmationNeedsTheFlagInTheDaemon() throws {
        let fixture = try Fixture()
        _ = try fixture.serve()
        #expect(try fixture.client(["compartment", "create", "Scratch", "--register", "general"]).status == 0)
        let unconfirmed = try fixture.client(["compartment", "destroy", "Scratch"])
        #expect(unconfirmed.status == 64 && unconfirmed.stderr.contains("add --yes to confirm"), "\(unconfirmed.stderr)")
        let confirmed = try fixture.client(["compartment", "destroy", "Scratch", "--yes"])
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
    }
}
