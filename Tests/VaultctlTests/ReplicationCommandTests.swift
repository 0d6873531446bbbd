import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `vaultctl replicate` and `vaultctl restore` against the desk's `serve --address` (SECURITY.md §9.13).
@Suite(.serialized)
struct ReplicationCommandTests {
    /// A laptop with one stored file, paired with a desk whose daemon serves the channel.
    static func laptopWithAFile(_ laptop: CLIVault, contents: String) throws -> String {
        #expect(try laptop.run(["compartment", "create", "Notes", "--register", "general"]).status == 0)
        let input = laptop.root + "/note.txt"
        try laptop.write(contents, to: input)
        let put = try laptop.run(["put", "--compartment", "Notes", input])
        guard put.status == 0 else { throw CLIError(message: "put: \(put.stderr)") }
        return put.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func json(_ result: CLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test("egress log shows a replica's decision as ciphertext (its size and SHA-256, nothing scanned), in text and in --json, beside a scanned payload's findings")
    func egressLogShowsCiphertextDecisions() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let bundleID = try Self.laptopWithAFile(laptop, contents: "session notes, 1 December\n")
        let (daemon, address) = try ServeChannelTests.serve(desk)
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let sent = try laptop.run(["replicate", "--peer", try PeersCommandTests.fingerprint(desk), "--address", address])
        #expect(sent.status == 0, "\(sent.stderr)")
        let scanned = try laptop.run(["egress", "check", "--to", "vault:self", "--from", "Notes", "-"], stdin: "no findings here\n")
        #expect(scanned.status == 0, "\(scanned.stderr)")
        let sealedLength = try #require(try FileManager.default.attributesOfItem(atPath: laptop.directory + "/assets/\(bundleID).vbundle")[.size] as? Int)

        let log = try laptop.run(["egress", "log", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log.stdout)")
        try #require(rows.count == 2, "\(log.stdout)")
        let (replica, payload) = (rows[0], rows[1])
        #expect(replica["content"] as? String == "ciphertext" && replica["findings"] is NSNull, "\(replica)")
        #expect(replica["decision"] as? String == "allow" && replica["size"] as? Int == sealedLength, "\(replica)")
        #expect((replica["sha256"] as? String)?.count == 64)
        #expect(payload["content"] as? String == "plaintext" && (payload["findings"] as? [String: Any])?.isEmpty == true, "\(payload)")

        let text = try laptop.run(["egress", "log"]).stdout.split(separator: "\n").map(String.init)
        try #require(text.count == 2, "\(text)")
        #expect(text[0].contains("\(sealedLength) bytes  ciphertext (not scanned; decided on metadata)  sha256 \(replica["sha256"] as? String ?? "?")"),
                "\(text[0])")
        #expect(!text[0].contains("found:") && text[1].hasSuffix("found: nothing"), "\(text)")
    }

    @Test func replicateThenRestoreThroughTheDaemon() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let bundleID = try Self.laptopWithAFile(laptop, contents: "session notes, 30 November\n")
        let (daemon, address) = try ServeChannelTests.serve(desk)
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let deskID = try PeersCommandTests.fingerprint(desk)

        let sent = try laptop.run(["replicate", "--to", deskID, "--address", address, "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try Self.json(sent)["sent"] as? [String] == [bundleID])
        let again = try laptop.run(["replicate", "--to", deskID, "--address", address])
        #expect(again.status == 0 && again.stdout.contains("Sent 0 bundle(s)") && again.stdout.contains("1 already there"), "\(again.stdout)")

        // The laptop loses the file; restore brings it back and get reads it.
        unlink(laptop.directory + "/assets/\(bundleID).vbundle")
        #expect(try laptop.run(["get", bundleID, "-o", laptop.root + "/lost"]).status != 0)
        let restored = try laptop.run(["restore", "--from", deskID, "--address", address])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("restored  \(bundleID)"))
        let fetched = try laptop.run(["get", bundleID, "-o", laptop.root + "/fetched"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try String(contentsOfFile: laptop.root + "/fetched", encoding: .utf8) == "session notes, 30 November\n")

        let log = try laptop.run(["audit", "log", "--json"])
        let actions = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]]).compactMap { $0["action"] as? String }
        #expect(actions.contains("replica.send") && actions.contains("bundle.restore"))
    }

    @Test("restore on a vault whose whole assets/ folder is gone recreates it (0700) and brings every bundle back, instead of refusing to run")
    func restoreRecreatesMissingAssets() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let bundleID = try Self.laptopWithAFile(laptop, contents: "the folder went with the old disk\n")
        let (daemon, address) = try ServeChannelTests.serve(desk)
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let deskID = try PeersCommandTests.fingerprint(desk)
        #expect(try laptop.run(["replicate", "--to", deskID, "--address", address]).status == 0)
        try FileManager.default.removeItem(atPath: laptop.directory + "/assets")

        let restored = try laptop.run(["restore", "--from", deskID, "--address", address])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stderr.contains("assets/ folder was missing: recreated it"), "\(restored.stderr)")
        #expect(restored.stdout.contains("restored  \(bundleID)"))
        let mode = try FileManager.default.attributesOfItem(atPath: laptop.directory + "/assets")[.posixPermissions] as? Int
        #expect(mode == 0o700)
        let fetched = try laptop.run(["get", bundleID, "-o", laptop.root + "/fetched"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(try String(contentsOfFile: laptop.root + "/fetched", encoding: .utf8) == "the folder went with the old disk\n")
    }

    @Test func restoreSaysWhatItCouldNotBringBack() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let bundleID = try Self.laptopWithAFile(laptop, contents: "never replicated\n")
        let (daemon, address) = try ServeChannelTests.serve(desk)
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        unlink(laptop.directory + "/assets/\(bundleID).vbundle")
        let result = try laptop.run(["restore", "--from", try PeersCommandTests.fingerprint(desk), "--address", address])
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stdout.contains("missing   \(bundleID)"))
        #expect(result.stderr.contains("1 bundle(s) could not be restored"))
    }

    @Test("a damaged copy is refused with its reason in plain words, not an internal code name; exit 65")
    func refusedCopyInPlainWords() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let bundleID = try Self.laptopWithAFile(laptop, contents: String(repeating: "a damaged copy\n", count: 200))
        let (daemon, address) = try ServeChannelTests.serve(desk)
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let deskID = try PeersCommandTests.fingerprint(desk)
        #expect(try laptop.run(["replicate", "--to", deskID, "--address", address]).status == 0)
        // Flip a byte near the end of the desk's copy (inside the last chunk's ciphertext).
        let replicas = desk.directory + "/replicas"
        let copy = try #require(FileManager.default.subpaths(atPath: replicas)?.first { $0.hasSuffix("\(bundleID).replica") })
        var bytes = try Data(contentsOf: URL(fileURLWithPath: replicas + "/" + copy))
        bytes[bytes.count - 20] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: replicas + "/" + copy))
        unlink(laptop.directory + "/assets/\(bundleID).vbundle")

        let result = try laptop.run(["restore", "--from", deskID, "--address", address])
        #expect(result.status == 65, "\(result.stdout)\(result.stderr)")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("refused   \(bundleID)") }, "\(result.stdout)")
        #expect(line.range(of: #"\([a-z]+[A-Z][A-Za-z]*:"#, options: .regularExpression) == nil, "a code name: \(line)")
    }

    @Test func anUnknownPeerIsNamed() throws {
        let laptop = try CLIVault()
        let result = try laptop.run(["replicate", "--to", "nobody", "--address", "127.0.0.1:9"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("no paired device"))
        let missing = try laptop.run(["restore", "--address", "127.0.0.1:9"])
        #expect(missing.status == 64 && missing.stderr.contains("--peer"), "\(missing.stderr)")
        // --peer is the one name for the peer; --to and --from stay accepted as hidden aliases.
        let named = try laptop.run(["restore", "--peer", "nobody", "--address", "127.0.0.1:9"])
        #expect(named.status == 66 && named.stderr.contains("no paired device"), "\(named.stderr)")
        let replicated = try laptop.run(["replicate", "--peer", "nobody", "--address", "127.0.0.1:9"])
        #expect(replicated.status == 66 && replicated.stderr.contains("no paired device"), "\(replicated.stderr)")
    }
}
