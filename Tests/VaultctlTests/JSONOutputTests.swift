import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// `--json` on every command (issue 14): each command the overview lists either prints one JSON
/// document whose keys are snake_case, or refuses --json with exit 64 and the documented message
/// ("CMD has no JSON output (why); leave out --json"). A command added to the overview and not to
/// this walk fails the coverage check.
@Suite("vaultctl --json: every command prints parseable JSON or refuses it", .serialized)
struct JSONOutputTests {
    /// Commands whose output is a file's bytes, or that are interactive: they refuse --json.
    static let refusing: Set = ["open", "get", "serve", "demo", "ai mcp rm"]

    /// Commands that talk to a device over the network (whose JSON the channel tests parse:
    /// ReplicationCommandTests, AuditWitnessCommandTests, ShareOverChannelTests): here, that --json
    /// passes the parser and the command goes on to fail for the network's reason (exit 74).
    static let overTheNetwork: [String: [String]] = [
        "audit witness": ["--peer", "desk", "--address", "127.0.0.1:9"],
        "share": ["Memos", "--peer", "desk", "--role", "viewer", "--address", "127.0.0.1:9"],
        "replicate": ["--peer", "desk", "--address", "127.0.0.1:9"],
        "restore": ["--peer", "desk", "--address", "127.0.0.1:9"],
        "peers ping": ["--peer", "desk", "--address", "127.0.0.1:9"],
        "recover push": ["--peer", "desk", "--address", "127.0.0.1:9"],
        "sync now": ["--peer", "desk", "--address", "127.0.0.1:9"],
        "repair": ["--from", "desk", "--address", "127.0.0.1:9"],
    ]

    /// Keys in one style: lower snake_case. The names under `details` and `detail_hashes` are the
    /// audit log's detail names (SECURITY.md §8), data rather than keys of this output.
    static func badKeys(_ value: Any, path: String = "") -> [String] {
        if let array = value as? [Any] { return array.flatMap { badKeys($0, path: path + "[]") } }
        guard let object = value as? [String: Any] else { return [] }
        return object.flatMap { key, child -> [String] in
            let wellFormed = key.range(of: #"^[a-z][a-z0-9]*(_[a-z0-9]+)*$"#, options: .regularExpression) != nil
            let own = wellFormed ? [] : ["\(path).\(key)"]
            return own + (["details", "detail_hashes"].contains(key) ? [] : badKeys(child, path: path + "." + key))
        }
    }

    /// Runs `arguments` with --json and checks it gave one JSON document in one key style.
    @discardableResult
    static func json(_ vault: CLIVault, _ arguments: [String], unlock: Bool = true, stdin: String? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> Any {
        let result = try vault.run(arguments + ["--json"], unlock: unlock, stdin: stdin)
        #expect(result.status == 0, "\(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        let parsed = try #require(try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed]),
                                  "\(arguments.joined(separator: " ")) --json printed no JSON: \(result.stdout)", sourceLocation: sourceLocation)
        #expect(parsed is [String: Any] || parsed is [Any], "\(arguments): a JSON document is an object or an array", sourceLocation: sourceLocation)
        #expect(badKeys(parsed).isEmpty, "\(arguments.joined(separator: " ")): keys not in snake_case: \(badKeys(parsed))",
                sourceLocation: sourceLocation)
        return parsed
    }

    @Test("every listed command prints parseable snake_case JSON with --json, or refuses it with exit 64 and the reason")
    func everyCommand() throws {
        let listed = Set(try HelpTests.listedCommands())
        var walked: Set<String> = []
        func walk(_ command: String, _ body: () throws -> Void) rethrows {
            walked.insert(command)
            try body()
        }
        let vault = try CLIVault()
        let root = vault.root
        try vault.write("minutes of the board\n", to: root + "/a.txt")

        try walk("init") {
            let fresh = root + "/fresh"
            let created = try CLI.run(["init", "--vault", fresh, "--passphrase-file", vault.passphraseFile, "--json"] + CLI.fastKDF)
            #expect(created.status == 0, "\(created.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
            #expect((object["kdf"] as? [String: Any])?["memory_kib"] as? Int == 19456 && Self.badKeys(object).isEmpty, "\(object)")
        }
        try walk("status") { try Self.json(vault, ["status"], unlock: false) }
        try walk("unlock") { try Self.json(vault, ["unlock"]) }
        try walk("passwd") {
            try vault.write(CLIVault.passphrase + "\n", to: root + "/same")
            try Self.json(vault, ["passwd", "--new-passphrase-file", root + "/same"])
        }
        try walk("recovery create-key") { try Self.json(vault, ["recovery", "create-key"]) }
        try walk("recovery split") { try Self.json(vault, ["recovery", "split", "--shares", "3", "--threshold", "2", "-o", root + "/shares"]) }
        try walk("compartment create") {
            try Self.json(vault, ["compartment", "create", "Memos", "--register", "general"])
            try Self.json(vault, ["compartment", "create", "Notes", "--register", "healthcare"])
            try Self.json(vault, ["compartment", "create", "Scratch", "--register", "general"])
        }
        try walk("compartment list") { try Self.json(vault, ["compartment", "list"]) }
        try walk("seal") {
            let sealed = try #require(try Self.json(vault, ["seal", "--compartment", "Memos", root + "/a.txt", "-o", root + "/a.vbundle"]) as? [String: Any])
            #expect((sealed["bundle_id"] as? String)?.count == 32 && sealed["compartment"] as? String == "Memos" && sealed["bytes"] as? Int == 21,
                    "\(sealed)")
            let toStdout = try vault.run(["seal", "--compartment", "Memos", root + "/a.txt", "--json"])
            #expect(toStdout.status == 64 && toStdout.stderr.contains("seal --json prints a report on standard output: write the bundle with -o FILE"),
                    "\(toStdout.stderr)")
        }
        try walk("inspect") { try Self.json(vault, ["inspect", root + "/a.vbundle"], unlock: false) }
        let put = try #require(try Self.json(vault, ["put", "--compartment", "Memos", root + "/a.txt"]) as? [String: Any])
        walked.insert("put")
        let id = try #require(put["id"] as? String ?? put["bundle_id"] as? String, "put --json names the bundle: \(put)")
        try walk("ls") { try Self.json(vault, ["ls"]) }
        try walk("compartment rotate") { try Self.json(vault, ["compartment", "rotate", "Memos"]) }
        try walk("compartment rewrap") { try Self.json(vault, ["compartment", "rewrap", "Memos"]) }
        try walk("compartment retire") { try Self.json(vault, ["compartment", "retire", "Memos", "--version", "1", "--yes"]) }
        try walk("compartment destroy") { try Self.json(vault, ["compartment", "destroy", "Scratch", "--yes"]) }
        try walk("rm") { try Self.json(vault, ["rm", id, "--yes"]) }
        try walk("compact") {
            let compaction = try #require(try Self.json(vault, ["compact"]) as? [String: Any])
            #expect(compaction["bytes_before"] is Int && compaction["bytes_after"] is Int, "\(compaction)")
        }

        try walk("audit log") { try Self.json(vault, ["audit", "log", "--details"]) }
        try walk("audit verify") { try Self.json(vault, ["audit", "verify"], unlock: false) }
        try walk("audit key") {
            let key = try #require(try Self.json(vault, ["audit", "key"], unlock: false) as? [String: Any])
            let vkey = try #require(key["vkey"] as? String)
            try walk("audit export") {
                let exported = try #require(try Self.json(vault, ["audit", "export", "-o", root + "/log.export"], unlock: false) as? [String: Any])
                #expect((exported["entries"] as? Int ?? 0) > 10, "\(exported)")
            }
            try walk("audit verify-export") {
                let verified = try #require(try Self.json(vault, ["audit", "verify-export", root + "/log.export", "--key", vkey], unlock: false)
                                            as? [String: Any])
                #expect(verified["verified"] as? Bool == true, "\(verified)")
            }
        }
        try walk("audit checkpoint") {
            let checkpoint = try #require(try Self.json(vault, ["audit", "checkpoint"], unlock: false) as? [String: Any])
            let note = try #require(checkpoint["signed_note"] as? String)
            #expect(note.hasPrefix(try #require(checkpoint["origin"] as? String)) && checkpoint["tree_size"] as? Int ?? 0 > 0, "\(checkpoint)")
            try vault.write(note, to: root + "/old.cp")
        }
        try walk("audit prove") { try Self.json(vault, ["audit", "prove", "--entry", "1"], unlock: false) }
        try walk("audit consistency") { try Self.json(vault, ["audit", "consistency", "--from", root + "/old.cp"], unlock: false) }
        // A one-leaf tree: its root is its leaf hash, and the proof is empty.
        let leaf = Data(repeating: 7, count: 32).base64EncodedString(), other = Data(repeating: 8, count: 32).base64EncodedString()
        try walk("audit check-inclusion") {
            let valid = try Self.json(vault, ["audit", "check-inclusion", "--leaf-hash", leaf, "--index", "0", "--size", "1", "--root", leaf,
                                              "--proof", ""], unlock: false) as? [String: Any]
            #expect(valid?["valid"] as? Bool == true)
            let invalid = try vault.run(["audit", "check-inclusion", "--leaf-hash", leaf, "--index", "0", "--size", "1", "--root", other,
                                         "--proof", "", "--json"], unlock: false)
            let answer = try JSONSerialization.jsonObject(with: Data(invalid.stdout.utf8)) as? [String: Any]
            #expect(invalid.status == 1 && answer?["valid"] as? Bool == false && answer?["reason"] is String, "\(invalid.stdout)")
        }
        try walk("audit check-consistency") {
            let valid = try Self.json(vault, ["audit", "check-consistency", "--size1", "1", "--size2", "1", "--root1", leaf, "--root2", leaf,
                                              "--proof", ""], unlock: false) as? [String: Any]
            #expect(valid?["valid"] as? Bool == true)
        }
        try walk("audit hash") {
            let hashed = try Self.json(vault, ["audit", "hash", "--field", "file"], stdin: "a.txt\n") as? [String: Any]
            #expect((hashed?["hash"] as? String)?.count == 64 && hashed?["field"] as? String == "file")
        }
        try walk("egress check") {
            let decided = try vault.run(["egress", "check", "--to", "export:auditor", "--from", "Memos", root + "/a.txt", "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(decided.stdout.utf8)) as? [String: Any], "\(decided.stderr)")
            #expect([0, 3, 4].contains(decided.status) && Self.badKeys(object).isEmpty, "\(object)")
        }
        try walk("egress log") { try Self.json(vault, ["egress", "log"]) }
        try walk("device") { try Self.json(vault, ["device"]) }
        try walk("peers list") { try Self.json(vault, ["peers", "list"], unlock: false) }
        try walk("peers discover") {
            try Self.json(vault, ["peers", "discover", "--seconds", "1", "--announcements", "127.0.0.1:0"], unlock: false)
        }
        try walk("backup") { try Self.json(vault, ["backup", "-o", root + "/vault.backup"], unlock: false) }
        try walk("backup verify") { try Self.json(vault, ["backup", "verify", root + "/vault.backup"]) }
        try walk("restore-backup") { try Self.json(vault, ["restore-backup", root + "/vault.backup", "--into", root + "/restored"]) }

        // Pairing: both sides print one JSON document (the code goes to the host's stderr).
        let desk = try CLIVault()
        try walk("pair host") {
            let host = try PairCommandTests.startHost(desk, ["--address", "127.0.0.1:0", "--json"])
            try walk("pair join") { try Self.json(vault, ["pair", "join", "--address", host.address, "--code-file", "-"], stdin: host.code + "\n") }
            let hosted = host.finish()
            let object = try JSONSerialization.jsonObject(with: Data(hosted.stdout.utf8)) as? [String: Any]
            #expect(hosted.status == 0 && object?["peer"] is [String: Any] && Self.badKeys(object ?? [:]).isEmpty, "\(hosted.stdout) \(hosted.stderr)")
        }
        let deskFingerprint = try PeersCommandTests.fingerprint(desk)
        try walk("device rename") { try Self.json(vault, ["device", "rename", deskFingerprint, "desk-renamed"]) }
        try walk("share revoke") { try Self.json(vault, ["share", "revoke", "Memos", "--peer", deskFingerprint]) }
        for (command, arguments) in Self.overTheNetwork {
            walked.insert(command)
            let words = command.split(separator: " ").map(String.init)
            let result = try vault.run(words + arguments.map { $0 == "desk" ? deskFingerprint : $0 } + ["--json"])
            #expect(result.status == 74 && !result.stderr.contains("has no JSON output"), "\(command) --json: \(result.status) \(result.stderr)")
        }
        // Recovery from a keeper (RecoverFromPeerTests parses both documents): here, that --json passes
        // the parser and the command fails for its own reason: no copy kept, nothing listening.
        try walk("recover host") {
            let result = try vault.run(["recover", "host", "--peer", deskFingerprint, "--address", "127.0.0.1:0", "--json"])
            #expect(result.status == 66 && result.stderr.contains("keeps no whole-vault copy"), "recover host --json: \(result.stderr)")
        }
        try walk("recover") {
            try vault.write("AAAAA-BBBBB\n", to: root + "/recovery-code")
            let result = try CLI.run(["recover", "--address", "127.0.0.1:9", "--into", root + "/recovered", "--code-file", root + "/recovery-code",
                                      "--passphrase-file", vault.passphraseFile, "--json"])
            #expect(result.status == 74 && !result.stderr.contains("has no JSON output"), "recover --json: \(result.status) \(result.stderr)")
        }
        try walk("peers trust") { try Self.json(vault, ["peers", "trust", "--peer", deskFingerprint, "mine"]) }
        try walk("sync pause") { try Self.json(vault, ["sync", "pause", "--peer", deskFingerprint]) }
        try walk("sync status") { try Self.json(vault, ["sync", "status"]) }
        try walk("sync resume") { try Self.json(vault, ["sync", "resume", "--peer", deskFingerprint]) }
        try walk("peers revoke") { try Self.json(vault, ["peers", "revoke", "--peer", deskFingerprint]) }
        // The writing model (WritingCommandTests checks what the documents say).
        try walk("project create") { try Self.json(vault, ["project", "create", "Harbour", "--register", "fiction"]) }
        try walk("project list") { try Self.json(vault, ["project", "list"]) }
        try walk("conflicts") { try Self.json(vault, ["conflicts"]) }
        try walk("project show") { try Self.json(vault, ["project", "show", "Harbour"]) }
        try walk("doc add") { try Self.json(vault, ["doc", "add", "Harbour", "Arrival"]) }
        try walk("doc write") { try Self.json(vault, ["doc", "write", "Harbour", "Arrival"], stdin: "# Arrival\n\nIt rained.\n") }
        try walk("doc show") { try Self.json(vault, ["doc", "show", "Harbour", "Arrival"]) }
        try walk("doc list") { try Self.json(vault, ["doc", "list", "Harbour"]) }
        try walk("doc move") { try Self.json(vault, ["doc", "move", "Harbour", "Arrival", "--top"]) }
        try walk("snapshot create") { try Self.json(vault, ["snapshot", "create", "Harbour", "Arrival", "--title", "First"]) }
        try walk("snapshot list") { try Self.json(vault, ["snapshot", "list", "Harbour", "Arrival"]) }
        try walk("snapshot show") { try Self.json(vault, ["snapshot", "show", "Harbour", "Arrival", "1"]) }
        try walk("snapshot diff") { try Self.json(vault, ["snapshot", "diff", "Harbour", "Arrival", "1"]) }
        try walk("snapshot restore") { try Self.json(vault, ["snapshot", "restore", "Harbour", "Arrival", "1"]) }
        try walk("history") { try Self.json(vault, ["history", "Harbour", "Arrival"]) }
        try walk("branch create") { try Self.json(vault, ["branch", "create", "Harbour", "Arrival"], stdin: "# Arrival\n\nIt poured.\n") }
        try walk("branch list") { try Self.json(vault, ["branch", "list", "Harbour", "Arrival"]) }
        try walk("branch show") { try Self.json(vault, ["branch", "show", "Harbour", "Arrival", "1"]) }
        try walk("branch diff") { try Self.json(vault, ["branch", "diff", "Harbour", "Arrival", "1"]) }
        try walk("branch adopt") { try Self.json(vault, ["branch", "adopt", "Harbour", "Arrival", "1"]) }
        try walk("branch revert") { try Self.json(vault, ["branch", "revert", "Harbour", "Arrival", "1"]) }
        try walk("branch create") { try Self.json(vault, ["branch", "create", "Harbour", "Arrival"], stdin: "# Arrival\n\nDry.\n") }
        try walk("branch discard") { try Self.json(vault, ["branch", "discard", "Harbour", "Arrival", "2"]) }
        try walk("search") { try Self.json(vault, ["search", "Harbour", "rained"]) }
        try walk("activity") { try Self.json(vault, ["activity", "Harbour"]) }
        try walk("project snapshot") { try Self.json(vault, ["project", "snapshot", "Harbour", "--title", "All of it"]) }
        try walk("project versions") { try Self.json(vault, ["project", "versions", "Harbour"]) }
        try walk("project restore") { try Self.json(vault, ["project", "restore", "Harbour", "1"]) }
        try walk("export") { try Self.json(vault, ["export", "Harbour", "--format", "md", "-o", vault.root + "/harbour.md"]) }
        try walk("doc import") { try Self.json(vault, ["doc", "import", "Harbour", "Imported", "-"], stdin: "# Imported\n\n*Kept* as written.\n") }
        try walk("template list") { try Self.json(vault, ["template", "list"], unlock: false) }
        try walk("template use") { try Self.json(vault, ["template", "use", "Harbour", "scene-card"]) }
        try walk("lexicon") { try Self.json(vault, ["lexicon"], unlock: false) }
        try walk("entry add") { try Self.json(vault, ["entry", "add", "Harbour", "Mara", "--kind", "character", "-"], stdin: "Role: keeper\n\nShe keeps the light.\n") }
        try walk("entry list") { try Self.json(vault, ["entry", "list", "Harbour"]) }
        try walk("entry show") { try Self.json(vault, ["entry", "show", "Harbour", "Mara"]) }
        try walk("entry rm") { try Self.json(vault, ["entry", "rm", "Harbour", "Mara", "--yes"]) }
        try walk("snippet list") { try Self.json(vault, ["snippet", "list"], unlock: false) }
        try walk("snippet insert") { try Self.json(vault, ["snippet", "insert", "Harbour", "Arrival", "scene-break"]) }
        // The assistant's commands (AICommandTests checks what they say), against a model server of our own.
        let model = try ReplayServer { _ in Wire.chunkedEvents([#"{"choices":[{"index":0,"delta":{"content":"The lamps came on."},"finish_reason":"stop"}]}"#, "[DONE]"]) }
        defer { model.stop() }
        try walk("ai providers add") { try Self.json(vault, ["ai", "providers", "add", "local", "--url", model.url, "--model", "smollm2", "--local"]) }
        try walk("ai providers list") { try Self.json(vault, ["ai", "providers", "list"], unlock: false) }
        try walk("ai providers test") { try Self.json(vault, ["ai", "providers", "test", "local"], unlock: false) }
        try walk("ai lanes") { try Self.json(vault, ["ai", "lanes", "--project", "Harbour"]) }
        try walk("ai allow-local") { try Self.json(vault, ["ai", "allow-local", "local", "--project", "Harbour", "--lane", "coauthor.draft"]) }
        try walk("ai run") { try Self.json(vault, ["ai", "run", "coauthor.draft", "--project", "Harbour", "--doc", "Arrival"]) }
        try walk("ai log") { try Self.json(vault, ["ai", "log"]) }
        try walk("ai policy set") { try Self.json(vault, ["ai", "policy", "set", "coauthor.draft", "--providers", "local", "--project", "Harbour"]) }
        try walk("ai policy") { try Self.json(vault, ["ai", "policy", "--project", "Harbour"]) }
        try walk("ai providers rm") { try Self.json(vault, ["ai", "providers", "rm", "local"]) }
        try walk("doc rm") { try Self.json(vault, ["doc", "rm", "Harbour", "Arrival", "--yes"]) }
        try walk("project rename") { try Self.json(vault, ["project", "rename", "Harbour", "Lighthouse"]) }
        try walk("project register") { try Self.json(vault, ["project", "register", "Lighthouse", "screenwriting"]) }
        try walk("project archive") { try Self.json(vault, ["project", "archive", "Lighthouse"]) }

        // Agents and MCP servers (AgentCommandTests checks what they say); the server is the
        // standard-library hostile one, which opens a session like any 2025-11-25 server.
        try walk("ai agents") { try Self.json(vault, ["ai", "agents"], unlock: false) }
        try walk("ai mcp add") {
            let server = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../AgentsTests/MCPServers/hostile_mcp_server.py").standardized.path
            let added = try CLI.run(["ai", "mcp", "add", "--json", "--vault", vault.directory, "--passphrase-file", vault.passphraseFile,
                                     "web", "--", "python3", server, "lying"])
            let object = try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any]
            #expect(added.status == 0 && object?["tools"] is [Any] && Self.badKeys(object ?? [:]).isEmpty, "\(added.stdout) \(added.stderr)")
        }
        try walk("ai mcp list") { try Self.json(vault, ["ai", "mcp", "list"], unlock: false) }
        try walk("ai tools") { try Self.json(vault, ["ai", "tools", "--no-start"], unlock: false) }

        // The daemon's commands, through a daemon started for them (with its console, for `console`).
        let started = try vault.run(["serve", "--detach", "--console"])
        #expect(started.status == 0, "\(started.stderr)")
        defer { _ = try? vault.run(["serve", "--stop"], unlock: false) }
        try walk("session start") {
            let session = try #require(try Self.json(vault, ["session", "start", "--compartment", "Notes", "--purpose", "json walk"], unlock: false)
                                       as? [String: Any])
            #expect(session["id"] is String || session["session"] is String || session["session"] is [String: Any], "\(session)")
        }
        try walk("session list") { try Self.json(vault, ["session", "list"], unlock: false) }
        try walk("session end") { try Self.json(vault, ["session", "end", "--all"], unlock: false) }
        try walk("console") {
            let launch = try #require(try Self.json(vault, ["console"], unlock: false) as? [String: Any])
            #expect((launch["url"] as? String)?.hasPrefix("http://127.0.0.1:") == true, "\(launch)")
        }

        for command in Self.refusing {
            walked.insert(command)
            let words = command.split(separator: " ").map(String.init)
            let result = try vault.run(words + ["x", "--json"], unlock: false)
            #expect(result.status == 64 && result.stderr.contains("vaultctl: error: \(command) has no JSON output (")
                    && result.stderr.contains("); leave out --json") && result.stdout.isEmpty, "\(command): \(result.stderr)")
        }
        #expect(listed.subtracting(walked).isEmpty, "commands this walk does not check for --json: \(listed.subtracting(walked).sorted())")
        #expect(walked.subtracting(listed).isEmpty, "commands walked that the overview does not list: \(walked.subtracting(listed).sorted())")
    }
}
