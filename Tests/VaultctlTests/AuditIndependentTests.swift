import CryptoVault
import Foundation
import Testing

/// An audit export written by the built vaultctl must be verified by the second, independent
/// implementation in testvectors/independent/audit_verifier.py, written from SECURITY.md §8 alone,
/// from the genesis key `vaultctl audit key` prints, and refused once one byte of an entry is changed:
/// the proof that §8 specifies the entries, the tree, the signed notes, the key chain and the export
/// completely. With the vault and its passphrase, the verifier also unseals every entry's details
/// (§8.3) and checks them against their keyed hashes.
///
/// Needs Debian's python3-nacl (and python3-argon2 for the details), like IndependentImplementationTests.
@Suite("vaultctl audit exports verified by the independent implementation (testvectors/independent/audit_verifier.py)")
struct AuditIndependentTests {
    static let verifier = IndependentImplementationTests.repositoryRoot
        .appendingPathComponent("testvectors/independent/audit_verifier.py").path
    static let compartmentName = "Müller v. Müller – 患者 田中"
    static let fileName = "Befund 2026-01 (Müller).pdf"

    /// A vault with some history: a compartment, a stored bundle fetched and removed, a failed
    /// unlock, a rotation, a verification; then its export and genesis key.
    final class Fixture {
        let cli: CLIVault
        let export: String
        let vkey: String

        init() throws {
            cli = try CLIVault()
            let steps: [([String], Bool)] = [
                (["compartment", "create", AuditIndependentTests.compartmentName, "--register", "legal"], true),
                (["compartment", "create", "Blog", "--register", "general"], true),
            ]
            for (arguments, unlock) in steps {
                let result = try cli.run(arguments, unlock: unlock)
                guard result.status == 0 else { throw CLIError(message: "\(arguments): \(result.stderr)") }
            }
            let input = cli.root + "/" + AuditIndependentTests.fileName
            try cli.write(String(repeating: "Befund. ", count: 3000), to: input)
            let put = try cli.run(["put", "--compartment", AuditIndependentTests.compartmentName, input])
            guard put.status == 0 else { throw CLIError(message: "put: \(put.stderr)") }
            let bundleID = put.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let wrong = cli.root + "/wrong-passphrase"
            try cli.write("not the passphrase at all\n", to: wrong)
            let refused = try CLI.run(["compartment", "list", "--vault", cli.directory, "--passphrase-file", wrong])
            guard refused.status != 0 else { throw CLIError(message: "a wrong passphrase unlocked the vault") }
            for arguments in [["get", bundleID, "-o", cli.root + "/fetched", "--purpose", "annual review"], ["compartment", "rotate", "Blog"], ["rm", bundleID, "--yes"]] {
                let result = try cli.run(arguments)
                guard result.status == 0 else { throw CLIError(message: "\(arguments): \(result.stderr)") }
            }
            let verified = try cli.run(["audit", "verify"], unlock: false)
            guard verified.status == 0 else { throw CLIError(message: "audit verify: \(verified.stdout) \(verified.stderr)") }
            export = cli.root + "/audit.export"
            let exported = try cli.run(["audit", "export", "--out", export], unlock: false)
            guard exported.status == 0 else { throw CLIError(message: "audit export: \(exported.stderr)") }
            let key = try cli.run(["audit", "key"], unlock: false)
            guard key.status == 0 else { throw CLIError(message: "audit key: \(key.stderr)") }
            vkey = key.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        var bytes: [UInt8] { get throws { [UInt8](try Data(contentsOf: URL(fileURLWithPath: export))) } }

        func write(_ bytes: [UInt8], as name: String) throws -> String {
            let path = cli.root + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// `vaultctl audit verify-export` of `path`.
        func vaultctlVerify(_ path: String) throws -> CLI.Result {
            try CLI.run(["audit", "verify-export", path, "--key", vkey])
        }
    }

    static func runVerifier(_ arguments: [String]) throws -> CLI.Result {
        let running = try CLI.start([verifier] + arguments, executable: IndependentImplementationTests.python)
        running.process.waitUntilExit()
        return running.result()
    }

    static func report(_ result: CLI.Result) throws -> [String: Any] {
        try #require(result.status == 0, "audit_verifier.py exited \(result.status): \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "JSON: \(result.stdout)")
    }

    /// The export with entry `index`'s byte `offset` XORed with `mask`, its base64 re-encoded. With
    /// `resealed`, the end line's count and digest are recomputed, so only §8.7 can catch the edit.
    static func editEntry(_ export: [UInt8], index: Int, offset: Int, mask: UInt8 = 0x01, resealed: Bool) throws -> [UInt8] {
        var lines = String(decoding: export, as: UTF8.self).components(separatedBy: "\n")
        let entryLines = lines.indices.filter { lines[$0].hasPrefix("entry ") }
        let line = entryLines[index]
        var entry = [UInt8](try #require(Data(base64Encoded: String(lines[line].dropFirst(6)))))
        entry[offset] ^= mask
        lines[line] = "entry " + Data(entry).base64EncodedString()
        guard resealed else { return Array(lines.joined(separator: "\n").utf8) }
        let endIndex = try #require(lines.lastIndex { $0.hasPrefix("end ") })
        let body = Array(lines[..<endIndex].map { $0 + "\n" }.joined().utf8)
        return body + Array("end \(entryLines.count) \(Data(SHA256.hash(body)).base64EncodedString())\n".utf8)
    }

    @Test("the Python verifier accepts vaultctl's export from `vaultctl audit key` alone, with vaultctl's counts")
    func acceptsTheExport() throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try Fixture()
        #expect(fixture.vkey.hasPrefix("vaultctl/"), "vkey: \(fixture.vkey)")
        let report = try Self.report(try Self.runVerifier(["--key", fixture.vkey, fixture.export]))
        let swift = try fixture.vaultctlVerify(fixture.export)
        try #require(swift.status == 0, "vaultctl audit verify-export: \(swift.stderr)")
        let entries = try #require(report["entries"] as? Int)
        let checkpoints = try #require(report["checkpoints"] as? Int)
        let epochs = try #require(report["epochs"] as? Int)
        #expect(swift.stdout.contains("\(entries) entries, \(checkpoints) checkpoints, \(epochs) key epochs"),
                "vaultctl says \(swift.stdout); Python says \(report)")
        #expect(entries >= 14, "init, 2 creates, put, a failed unlock, get, rotate, rm, verify, export and their unlocks: \(entries)")
        #expect(epochs == checkpoints + 1, "each checkpoint moved the key chain one epoch on")
        #expect(report["unsigned_entries"] as? Int == 0, "the export's own entry was checkpointed before it was written")
        let latest = try #require(report["latest_checkpoint"] as? [String: Any])
        #expect(latest["size"] as? Int == entries)
        let checkpoint = try fixture.cli.run(["audit", "checkpoint"], unlock: false)
        #expect(checkpoint.stdout.contains("\n\(entries)\n\(latest["root"] as? String ?? "?")\n"),
                "`audit checkpoint` prints the tree head the verifier computed: \(checkpoint.stdout)")
        #expect(report["origin"] as? String == String(fixture.vkey.prefix { $0 != "+" }), "origin = the vkey's name")
    }

    @Test("with the vault and passphrase, the Python verifier unseals every entry's details and matches their hashes")
    func unsealsTheDetails() throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try Fixture()
        let report = try Self.report(try Self.runVerifier(["--key", fixture.vkey, fixture.export, "--vault", fixture.cli.directory,
                                                           "--passphrase-file", fixture.cli.passphraseFile, "--details"]))
        let details = try #require(report["details"] as? [[String: Any]], "details: \(report)")
        let byAction = Dictionary(grouping: details) { $0["action"] as? String ?? "" }
        let created = (byAction["compartment.create"] ?? []).compactMap { $0["details"] as? [String: String] }
        #expect(created.contains { $0["name"] == Self.compartmentName && $0["register"] == "legal" }, "compartment.create: \(created)")
        #expect(created.contains { $0["name"] == "Blog" && $0["register"] == "general" }, "compartment.create: \(created)")
        let put = (byAction["bundle.put"] ?? []).compactMap { $0["details"] as? [String: String] }
        let length = "\("Befund. ".utf8.count * 3000)"
        #expect(put == [["bytes": length, "file": Self.fileName]], "bundle.put: \(put)")
        let removed = (byAction["bundle.rm"] ?? []).compactMap { $0["details"] as? [String: String] }
        #expect(removed == [["bytes": length]], "bundle.rm: \(removed)")
        // The privileged get ran in a one-command session: its purpose is sealed and unsealed too.
        let started = (byAction["session.start"] ?? []).compactMap { $0["details"] as? [String: String] }
        #expect(started.count == 1 && started.first?["purpose"] == "annual review", "session.start: \(started)")
        let read = (byAction["session.read"] ?? []).compactMap { $0["details"] as? [String: String] }
        #expect(read.first?["bytes"] == length && read.first?["part"] == "content", "session.read: \(read)")
        let ended = (byAction["session.end"] ?? []).compactMap { $0["details"] as? [String: String] }
        #expect(ended.first?["reason"] == "closed" && ended.first?["bundles"] == "1", "session.end: \(ended)")
        #expect(report["entries_with_details"] as? Int == 8, "init's device.create, two compartment.create, bundle.put, session.start/read/end and bundle.rm")
    }

    @Test("a one-byte edit of an entry is refused: by the end line as it stands, and by the chain or a checkpoint once resealed")
    func refusesAnEditedEntry() throws {
        try IndependentImplementationTests.requireReader()
        let fixture = try Fixture()
        let original = try fixture.bytes
        let count = String(decoding: original, as: UTF8.self).components(separatedBy: "\n").filter { $0.hasPrefix("entry ") }.count
        // Entry 2 (the first compartment.create): a byte of its actor (offset 34, after the fixed fields).
        for (index, resealed, kinds) in [(2, false, ["malformed-export"]), (2, true, ["entry-chain", "checkpoint-root"]),
                                         (count - 1, true, ["checkpoint-root"]), (0, true, ["entry-chain", "checkpoint-root"])] {
            let edited = try fixture.write(try Self.editEntry(original, index: index, offset: 34, resealed: resealed),
                                           as: "edited-\(index)-\(resealed).export")
            let python = try Self.runVerifier(["--key", fixture.vkey, edited])
            #expect(python.status == 1, "entry \(index) edited (resealed \(resealed)): Python exited \(python.status): \(python.stdout)")
            #expect(kinds.contains { python.stderr.contains("FAILED (\($0)") }, "entry \(index), resealed \(resealed): \(python.stderr)")
            let swift = try fixture.vaultctlVerify(edited)
            #expect(swift.status == 1, "entry \(index) edited (resealed \(resealed)): vaultctl exited \(swift.status): \(swift.stdout)")
        }
        // And the untouched export still verifies, from the file and under the right key only.
        #expect(try Self.runVerifier(["--key", fixture.vkey, fixture.export]).status == 0)
        let other = try Fixture()
        let foreign = try Self.runVerifier(["--key", other.vkey, fixture.export])
        #expect(foreign.status == 1 && foreign.stderr.contains("FAILED (genesis"), "another vault's key: \(foreign.stderr)")
    }
}
