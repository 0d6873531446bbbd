import Appliance
@testable import CryptoVault
import Foundation
import Testing
import TestSupport

@Suite("vaultctl: seal, open, inspect, put, get, ls, rm and compartment rewrap")
struct BundleCommandTests {
    @Test("seal FILE -o B then open B -o OUT gives back every byte, in a 0600 file")
    func roundTripThroughFiles() throws {
        let fixture = try BundleCLI()
        let plaintext = try fixture.randomFile("chart.pdf", count: 200_000)
        let sealed = try fixture.run(["seal", "--compartment", "files", plaintext, "-o", fixture.file("chart.vbundle")])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let header = try fixture.inspect("chart.vbundle")
        #expect(sealed.stderr.contains("Sealed chart.pdf into \(fixture.file("chart.vbundle")) (bundle \(header["bundle_id"] as? String ?? "?"))"))
        #expect(header["plaintext_length"] as? Int == 200000 && header["chunk_size"] as? Int == 65536)
        let opened = try fixture.run(["open", fixture.file("chart.vbundle"), "-o", fixture.file("chart.out")])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(try try fixture.bytes("chart.out") == fixture.bytes("chart.pdf"))
        let mode = try FileManager.default.attributesOfItem(atPath: fixture.file("chart.out"))[.posixPermissions] as? Int
        #expect(mode == 0o600, "plaintext must be private to its owner")
        // The sealed name is inside the bundle, not in clear.
        #expect(try !BundleCLI.contains(try fixture.bytes("chart.vbundle"), Array("chart.pdf".utf8)))
    }

    @Test("seal and open through pipes: a stream sealed to a stream says 'unknown' length and still round-trips")
    func roundTripThroughPipes() throws {
        let fixture = try BundleCLI()
        try fixture.randomFile("notes.tar", count: 150_000)
        let piped = try fixture.shell("cat \"$1\" | \"$2\" seal --compartment files --chunk-size 4096 - --vault \"$3\" --passphrase-file \"$4\" | cat > \"$5\"",
                                      fixture.file("notes.tar"), CLI.binary, fixture.directory, fixture.passphraseFile, fixture.file("piped.vbundle"))
        #expect(piped.status == 0, "\(piped.stderr)")
        let header = try fixture.inspect("piped.vbundle")
        #expect(header["plaintext_length"] is NSNull && header["chunk_size"] as? Int == 4096)
        let out = try fixture.shell("\"$1\" open \"$2\" --vault \"$3\" --passphrase-file \"$4\" | cat > \"$5\"",
                                    CLI.binary, fixture.file("piped.vbundle"), fixture.directory, fixture.passphraseFile, fixture.file("piped.out"))
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try try fixture.bytes("piped.out") == fixture.bytes("notes.tar"))

        // Standard input that is a file has a size: the header states it. `-o -` is standard output.
        let redirected = try fixture.shell("\"$1\" seal --compartment files - -o - --vault \"$2\" --passphrase-file \"$3\" < \"$4\" > \"$5\"",
                                           CLI.binary, fixture.directory, fixture.passphraseFile, fixture.file("notes.tar"), fixture.file("stdin.vbundle"))
        #expect(redirected.status == 0, "\(redirected.stderr)")
        #expect(try fixture.inspect("stdin.vbundle")["plaintext_length"] as? Int == 150000)
        let toStdout = try fixture.runCapturingBytes(["open", fixture.file("stdin.vbundle")])
        #expect(try toStdout.status == 0 && toStdout.stdout == fixture.bytes("notes.tar"))
    }

    @Test("--range gives exactly the bytes START..<END, clamped to the plaintext, for open and for get")
    func ranges() throws {
        let fixture = try BundleCLI()
        let path = try fixture.randomFile("scan.tiff", count: 10_000)
        let plaintext = try fixture.bytes("scan.tiff")
        #expect(try fixture.run(["seal", "--compartment", "files", "--chunk-size", "1024", path, "-o", fixture.file("scan.vbundle")]).status == 0)
        let id = try fixture.put("scan.tiff")
        for (start, end) in [(0, 1), (1000, 5000), (1023, 1025), (1024, 2048), (9999, 10_000), (9000, 20_000), (5, 5), (12_000, 13_000)] {
            let expected = Array(plaintext[min(start, plaintext.count)..<min(end, plaintext.count)])
            let opened = try fixture.runCapturingBytes(["open", fixture.file("scan.vbundle"), "--range", "\(start):\(end)"])
            #expect(opened.status == 0 && opened.stdout == expected, "open --range \(start):\(end): \(opened.stderr)")
            let got = try fixture.runCapturingBytes(["get", String(id.prefix(8)), "--range", "\(start):\(end)"])
            #expect(got.status == 0 && got.stdout == expected, "get --range \(start):\(end): \(got.stderr)")
        }
        let backwards = try fixture.run(["open", fixture.file("scan.vbundle"), "--range", "5:3"])
        #expect(backwards.status == 64 && backwards.stderr.contains("--range must be START:END"))
    }

    @Test("inspect shows the public header fields, as text and --json, with no vault and no passphrase")
    func inspect() throws {
        let fixture = try BundleCLI()
        let path = try fixture.randomFile("Patient-Jane-Roe.txt", count: 5000)
        #expect(try fixture.run(["seal", "--compartment", "files", "--chunk-size", "2048", path, "-o", fixture.file("jane.vbundle")]).status == 0)
        let status = try fixture.json(try fixture.run(["status", "--json"], unlock: false)) as? [String: Any]
        let compartments = try fixture.json(try fixture.run(["compartment", "list", "--json"])) as? [[String: Any]]

        // No --vault, no credential, standard input closed: inspect must not need any of them.
        let json = try CLI.run(["inspect", fixture.file("jane.vbundle"), "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let fields = try #require(try fixture.json(json) as? [String: Any])
        #expect(fields["format_version"] as? Int == 1)
        #expect(fields["vault_id"] as? String == status?["vault_id"] as? String)
        #expect(fields["compartment_id"] as? String == compartments?.first?["id"] as? String)
        #expect(fields["key_version"] as? Int == 1)
        #expect((fields["bundle_id"] as? String)?.count == 32)
        #expect(fields["chunk_size"] as? Int == 2048)
        #expect(fields["plaintext_length"] as? Int == 5000 && !(fields["plaintext_length"] is String), "a JSON number, not a string")
        #expect(fields["header_size"] as? Int == BundleHeader.fixedSize + 2 + 20 + 2 + 24 + 8 + 16)
        #expect(Set(fields.keys) == ["format_version", "vault_id", "compartment_id", "key_version", "bundle_id", "chunk_size",
                                     "plaintext_length", "header_size"], "nothing sealed (name, type, time) is shown")

        let text = try CLI.run(["inspect", fixture.file("jane.vbundle")])
        #expect(text.status == 0)
        #expect(text.stdout.contains("bundle_id         \(fields["bundle_id"] as? String ?? "?")"))
        #expect(text.stdout.contains("plaintext_length  5000") && text.stdout.contains("unverified"))
        #expect(!text.stdout.contains("Jane") && !json.stdout.contains("Jane"))

        try fixture.write(Array("not a bundle at all, just text".utf8), to: "plain.txt")
        let notBundle = try CLI.run(["inspect", fixture.file("plain.txt")])
        #expect(notBundle.status == 65 && notBundle.stderr.contains("bad magic"))
    }

    @Test("put, ls, get and rm, by full id and by unique prefix")
    func storeCommands() throws {
        let fixture = try BundleCLI()
        try fixture.randomFile("intake.pdf", count: 70_000)
        try fixture.randomFile("consent.pdf", count: 3_000)
        let first = try fixture.put("intake.pdf")
        let second = try fixture.put("consent.pdf", extra: ["--name", "Consent form.pdf"])
        #expect(first.count == 32 && second.count == 32 && first != second)
        #expect(Set(try fixture.assetNames()) == ["\(first).vbundle", "\(second).vbundle"])

        let listed = try #require(try fixture.json(try fixture.run(["ls", "--json"])) as? [[String: Any]])
        #expect(listed.map { $0["id"] as? String } == [first, second])
        #expect(listed.map { $0["name"] as? String } == ["intake.pdf", "Consent form.pdf"])
        #expect(listed.map { $0["bytes"] as? Int } == [70_000, 3_000])
        #expect(listed.allSatisfy { $0["compartment"] as? String == "files" && $0["key_version"] as? Int == 1 })
        let text = try fixture.run(["ls", "--compartment", "files"])
        #expect(text.status == 0 && text.stdout.contains("\(first)  files  v1  70000 bytes") && text.stdout.contains("Consent form.pdf"))

        let byPrefix = try fixture.run(["get", String(first.prefix(6)), "-o", fixture.file("intake.out")])
        #expect(byPrefix.status == 0, "\(byPrefix.stderr)")
        #expect(try try fixture.bytes("intake.out") == fixture.bytes("intake.pdf"))
        let byID = try fixture.runCapturingBytes(["get", second.uppercased()])
        #expect(try byID.status == 0 && byID.stdout == fixture.bytes("consent.pdf"))

        let tooShort = try fixture.run(["get", String(first.prefix(5))])
        #expect(tooShort.status == 64 && tooShort.stderr.contains("6 to 32 hex digits"))
        let nowhere = fixture.prefixMatchingNone(of: [first, second])
        let unknown = try fixture.run(["get", nowhere])
        #expect(unknown.status == 66 && unknown.stderr.contains("no bundle \(nowhere)"))

        let removed = try fixture.run(["rm", String(second.prefix(7)), "--yes"])
        #expect(removed.status == 0 && removed.stdout.contains("Removed \(second)."), "\(removed.stderr)")
        #expect(try fixture.assetNames() == ["\(first).vbundle"])
        let after = try #require(try fixture.json(try fixture.run(["ls", "--json"])) as? [[String: Any]])
        #expect(after.map { $0["id"] as? String } == [first])
        #expect(try fixture.run(["get", second]).status == 66)
        #expect(try fixture.run(["rm", second, "--yes"]).status == 66)
    }

    @Test("rotate, compartment rewrap, retire the old version: stored bundles still open; an unrewrapped file does not")
    func rewrapThenRetire() throws {
        let fixture = try BundleCLI()
        try fixture.randomFile("record.pdf", count: 100_000)
        let id = try fixture.put("record.pdf")
        #expect(try fixture.run(["seal", "--compartment", "files", fixture.file("record.pdf"), "-o", fixture.file("loose.vbundle")]).status == 0)
        let before = try fixture.bytes("assets/\(id).vbundle", inVault: true)

        #expect(try fixture.run(["compartment", "rotate", "files"]).status == 0)
        let rewrapped = try fixture.run(["compartment", "rewrap", "files"])
        #expect(rewrapped.status == 0 && rewrapped.stdout.contains("Rewrapped 1 bundle(s) of 'files' to key version 2"), "\(rewrapped.stderr)")
        let again = try fixture.run(["compartment", "rewrap", "files"])
        #expect(again.stdout.contains("Rewrapped 0 bundle(s)"))
        let listed = try fixture.json(try fixture.run(["ls", "--json"])) as? [[String: Any]]
        #expect(listed?.first?["key_version"] as? Int == 2)
        let after = try fixture.bytes("assets/\(id).vbundle", inVault: true)
        let headerSize = try BundleHeader(parsing: after).size
        #expect(after.count == before.count && after[headerSize...] == before[headerSize...], "only the header changes")

        let retired = try fixture.run(["compartment", "retire", "files", "--version", "1", "--yes"])
        #expect(retired.status == 0, "\(retired.stderr)")
        let got = try fixture.runCapturingBytes(["get", id])
        #expect(try got.status == 0 && got.stdout == fixture.bytes("record.pdf"), "\(got.stderr)")
        let loose = try fixture.run(["open", fixture.file("loose.vbundle"), "-o", fixture.file("loose.out")])
        #expect(loose.status == 65 && loose.stderr.contains("key version 1 of 'files' is retired or unknown"))
        #expect(!FileManager.default.fileExists(atPath: fixture.file("loose.out")))
    }

    @Test("a bundle from another vault is refused with exit 65 and 'another vault'")
    func foreignBundle() throws {
        let fixture = try BundleCLI()
        let other = try BundleCLI()
        let path = try other.randomFile("theirs.txt", count: 2000)
        #expect(try other.run(["seal", "--compartment", "files", path, "-o", other.file("theirs.vbundle")]).status == 0)
        let refused = try fixture.run(["open", other.file("theirs.vbundle"), "-o", fixture.file("theirs.out")])
        #expect(refused.status == 65 && refused.stderr.contains("this bundle belongs to another vault"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.file("theirs.out")))
    }

    @Test("open of a missing file exits 66; seal refuses an existing -o (73) unless --force")
    func missingAndExisting() throws {
        let fixture = try BundleCLI()
        let missing = try fixture.run(["open", fixture.file("nowhere.vbundle"), "-o", fixture.file("nowhere.out")])
        #expect(missing.status == 66 && missing.stderr.contains("nowhere.vbundle"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.file("nowhere.out")))

        let path = try fixture.randomFile("letter.txt", count: 4000)
        try fixture.write(Array("precious existing file".utf8), to: "letter.vbundle")
        let refused = try fixture.run(["seal", "--compartment", "files", path, "-o", fixture.file("letter.vbundle")])
        #expect(refused.status == 73 && refused.stderr.contains("already exists") && refused.stderr.contains("--force"))
        #expect(try try fixture.bytes("letter.vbundle") == Array("precious existing file".utf8))
        #expect(try fixture.leftovers() == [], "a refused seal leaves no temporary file")
        let forced = try fixture.run(["seal", "--compartment", "files", path, "-o", fixture.file("letter.vbundle"), "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let opened = try fixture.runCapturingBytes(["open", fixture.file("letter.vbundle")])
        #expect(try opened.status == 0 && opened.stdout == fixture.bytes("letter.txt"))
        // open refuses an existing -o the same way.
        let openRefused = try fixture.run(["open", fixture.file("letter.vbundle"), "-o", fixture.file("letter.txt")])
        #expect(openRefused.status == 73)
    }

    @Test("--help prints the command's usage", arguments: ["seal", "open", "inspect", "put", "get", "ls", "rm", "compartment rewrap"])
    func help(_ command: String) throws {
        let result = try CLI.run(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Usage: vaultctl \(command) ") || result.stdout.hasPrefix("Usage: vaultctl \(command)\n"),
                "\(result.stdout.prefix(80))")
        #expect(result.stdout.contains("Options:") || command == "inspect")
    }

    @Test("every seal, open, put, get, rewrap and rm adds exactly one bundle entry to the audit log, with its byte count; ls, inspect and failures add none")
    func operationsAreRecorded() throws {
        let fixture = try BundleCLI()
        let compartmentID = try fixture.compartmentID()
        try fixture.randomFile("memo.txt", count: 3000)
        var seen = try fixture.bundleEvents().count
        /// Runs `arguments` and returns its result and the bundle entries it added to the audit log.
        func run(_ arguments: [String], onVault: Bool = true) throws -> (CLI.Result, [BundleAuditEvent]) {
            let result = try onVault ? fixture.run(arguments) : CLI.run(arguments)
            let all = try fixture.bundleEvents()
            defer { seen = all.count }
            return (result, Array(all.dropFirst(seen)))
        }
        func summary(_ records: [BundleAuditEvent]) -> [String] { records.map(\.description) }

        let (sealed, sealRows) = try run(["seal", "--compartment", "files", fixture.file("memo.txt"), "-o", fixture.file("memo.vbundle")])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let sealedID = try fixture.bundleID("memo.vbundle")
        #expect(summary(sealRows) == ["seal \(sealedID) 3000"])

        let (opened, openRows) = try run(["open", fixture.file("memo.vbundle"), "-o", fixture.file("memo.out")])
        #expect(opened.status == 0 && summary(openRows) == ["open \(sealedID) 3000"], "\(opened.stderr)")
        let (ranged, rangeRows) = try run(["open", fixture.file("memo.vbundle"), "--range", "100:200", "-o", fixture.file("memo.range")])
        #expect(ranged.status == 0 && summary(rangeRows) == ["open \(sealedID) 100"], "\(ranged.stderr)")

        let (put, putRows) = try run(["put", "--compartment", "files", fixture.file("memo.txt")])
        let storedID = put.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(put.status == 0 && storedID.count == 32, "\(put.stderr)")
        #expect(summary(putRows) == ["put \(storedID) 3000"])
        let (got, getRows) = try run(["get", storedID, "-o", fixture.file("memo.got")])
        #expect(got.status == 0 && summary(getRows) == ["get \(storedID) 3000"], "\(got.stderr)")

        let (listed, listRows) = try run(["ls"])
        #expect(listed.status == 0 && listRows.isEmpty)
        let (inspected, inspectRows) = try run(["inspect", fixture.file("memo.vbundle")], onVault: false)
        #expect(inspected.status == 0 && inspectRows.isEmpty)

        #expect(try fixture.run(["compartment", "rotate", "files"]).status == 0)
        seen = try fixture.bundleEvents().count
        let (rewrapped, rewrapRows) = try run(["compartment", "rewrap", "files"])
        #expect(rewrapped.status == 0 && summary(rewrapRows) == ["rewrap \(storedID) -"], "\(rewrapped.stderr)")

        // Failures record nothing: a damaged bundle, a missing one, an unknown stored id.
        var damaged = try fixture.bytes("memo.vbundle")
        damaged[damaged.count - 5] ^= 0x10
        try fixture.write(damaged, to: "damaged.vbundle")
        let (failedOpen, failedOpenRows) = try run(["open", fixture.file("damaged.vbundle"), "-o", fixture.file("damaged.out")])
        #expect(failedOpen.status == 65 && failedOpenRows.isEmpty, "\(failedOpen.stderr)")
        let (failedStdout, failedStdoutRows) = try run(["open", fixture.file("damaged.vbundle")])
        #expect(failedStdout.status == 65 && failedStdoutRows.isEmpty)
        let (missing, missingRows) = try run(["get", fixture.prefixMatchingNone(of: [storedID])])
        #expect(missing.status == 66 && missingRows.isEmpty)

        let (removed, removeRows) = try run(["rm", storedID, "--yes"])
        #expect(removed.status == 0 && summary(removeRows) == ["rm \(storedID) 3000"], "\(removed.stderr)")
        #expect(try fixture.bundleEvents().allSatisfy { $0.compartmentID == compartmentID })
        let tables = try fixture.unlocked().vault.read { try $0.query("SELECT name FROM sqlite_master WHERE type = 'table'") }
        #expect(try !tables.map { try $0.text("name") }.contains("operations"), "the operations table of schema 3 is gone")
    }

    // MARK: Damaged bundles through the CLI (the library sweep is BundleSweepTests)

    @Test("damaged bundles opened with -o OUT exit 65 and leave neither OUT nor a temporary file")
    func damagedBundlesLeaveNothing() throws {
        let fixture = try BundleCLI()
        let path = try fixture.randomFile("intake.txt", count: 3000)
        #expect(try fixture.run(["seal", "--compartment", "files", "--chunk-size", "1024", path, "-o", fixture.file("intake.vbundle")]).status == 0)
        let original = try fixture.bytes("intake.vbundle")
        let headerSize = try BundleHeader(parsing: original).size
        func flipped(_ index: Int) -> [UInt8] {
            var bytes = original
            bytes[index] ^= 0x04
            return bytes
        }
        let variants: [(String, [UInt8], String)] = [
            ("magic", flipped(2), "bad magic"),
            ("key commitment", flipped(headerSize - 40), "key commitment"),
            ("header MAC", flipped(headerSize - 1), "header: authentication failed"),
            ("chunk 0", flipped(headerSize + 10), "chunk 0 fails authentication"),
            ("chunk 1", flipped(headerSize + 1040 + 500), "chunk 1 fails authentication"),
            ("last chunk's tag", flipped(original.count - 1), "chunk 2 fails authentication"),
            ("cut in the header", Array(original.prefix(headerSize - 7)), "ends inside its header"),
            ("cut in chunk 2", Array(original.prefix(headerSize + 2080 + 100)), "it ends in chunk 2"),
            ("final chunk dropped", Array(original.prefix(headerSize + 2080)), "it ends in chunk 2"),
            ("trailing byte", original + [0], "trailing data"),
        ]
        let out = fixture.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for (name, bytes, reason) in variants {
            try fixture.write(bytes, to: "variant.vbundle")
            let result = try fixture.run(["open", fixture.file("variant.vbundle"), "-o", out + "/intake.txt"])
            #expect(result.status == 65 && result.stderr.contains(reason), "\(name): \(result.status) \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(name)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [], "\(name): nothing may be left in the output folder")
        }
        try fixture.write(original, to: "variant.vbundle")
        #expect(try fixture.run(["open", fixture.file("variant.vbundle"), "-o", out + "/intake.txt"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["intake.txt"])
    }

    @Test("to standard output, a bad last chunk exits 65 and stderr says exactly how many bytes were already released")
    func badLastChunkToStandardOutput() throws {
        let fixture = try BundleCLI()
        // 41 chunks of 1 KiB (the last one short); one thread verifies 16 chunks a batch, so two batches
        // (32 KiB) go out before the third, which holds the damaged last chunk, fails.
        let text = (0..<41_000).map { index in UInt8(ascii: "a") + UInt8(index % 26) }
        try fixture.write(text, to: "letter.txt")
        #expect(try fixture.run(["seal", "--compartment", "files", "--chunk-size", "1024", fixture.file("letter.txt"),
                                 "-o", fixture.file("letter.vbundle")]).status == 0)
        var bytes = try fixture.bytes("letter.vbundle")
        bytes[bytes.count - 20] ^= 0x01
        try fixture.write(bytes, to: "letter.vbundle")

        let result = try fixture.runCapturingBytes(["open", fixture.file("letter.vbundle"), "--threads", "1"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("chunk 40 fails authentication"), "\(result.stderr)")
        let released = try #require(BundleCLI.releasedCount(in: result.stderr), "stderr must say what was released: \(result.stderr)")
        #expect(released == result.stdout.count, "stderr says \(released) bytes, standard output received \(result.stdout.count)")
        #expect(released == 32 * 1024)
        #expect(result.stdout == Array(text.prefix(released)), "what was released is the verified plaintext prefix")

        // With all cores (a batch of at least 16 chunks per thread) the count must still match what arrived.
        let parallel = try fixture.runCapturingBytes(["open", fixture.file("letter.vbundle")])
        #expect(parallel.status == 65)
        #expect(BundleCLI.releasedCount(in: parallel.stderr) ?? 0 == parallel.stdout.count, "\(parallel.stderr)")

        // A small bundle fails in its first batch: nothing is released, and nothing is claimed.
        try fixture.write(Array(text.prefix(3000)), to: "short.txt")
        #expect(try fixture.run(["seal", "--compartment", "files", "--chunk-size", "1024", fixture.file("short.txt"),
                                 "-o", fixture.file("short.vbundle")]).status == 0)
        var short = try fixture.bytes("short.vbundle")
        short[short.count - 1] ^= 0x80
        try fixture.write(short, to: "short.vbundle")
        let small = try fixture.runCapturingBytes(["open", fixture.file("short.vbundle")])
        #expect(small.status == 65 && small.stdout.isEmpty && !small.stderr.contains("already been written"), "\(small.stderr)")
    }
}

/// A CLI vault with one compartment, "files", and helpers for files beside it.
final class BundleCLI {
    let vault: CLIVault
    var root: String { vault.root }
    var directory: String { vault.directory }
    var passphraseFile: String { vault.passphraseFile }

    init() throws {
        vault = try CLIVault()
        let created = try vault.run(["compartment", "create", "files", "--register", "general"])
        guard created.status == 0 else { throw CLIError(message: "compartment create failed: \(created.stderr)") }
    }

    func file(_ name: String) -> String { root + "/" + name }

    func run(_ arguments: [String], unlock: Bool = true) throws -> CLI.Result { try vault.run(arguments, unlock: unlock) }

    /// Runs a command on this vault with standard output captured as bytes (it may be binary).
    func runCapturingBytes(_ arguments: [String]) throws -> (status: Int32, stdout: [UInt8], stderr: String) {
        let running = try CLI.start(arguments + ["--vault", directory, "--passphrase-file", passphraseFile])
        running.process.waitUntilExit()
        let stdout = [UInt8](FileManager.default.contents(atPath: running.outputPath) ?? Data())
        let result = running.result()
        return (result.status, stdout, result.stderr)
    }

    /// Runs a bash script (with pipefail) whose arguments are $1, $2, ...
    func shell(_ script: String, _ arguments: String...) throws -> CLI.Result {
        let running = try CLI.start(["-c", "set -o pipefail; " + script, "bash"] + arguments, executable: "/bin/bash")
        running.process.waitUntilExit()
        return running.result()
    }

    @discardableResult
    func randomFile(_ name: String, count: Int) throws -> String {
        var generator = SystemRandomNumberGenerator()
        try write((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }, to: name)
        return file(name)
    }

    func write(_ bytes: [UInt8], to name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
    }

    func bytes(_ name: String, inVault: Bool = false) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: inVault ? directory + "/" + name : file(name))))
    }

    func json(_ result: CLI.Result) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    func inspect(_ name: String) throws -> [String: Any] {
        let result = try CLI.run(["inspect", file(name), "--json"])
        guard result.status == 0, let fields = try json(result) as? [String: Any] else {
            throw CLIError(message: "inspect failed: \(result.stderr)")
        }
        return fields
    }

    func bundleID(_ name: String) throws -> String { try inspect(name)["bundle_id"] as? String ?? "" }

    /// `vaultctl put` and the id it printed.
    func put(_ name: String, extra: [String] = []) throws -> String {
        let result = try run(["put", "--compartment", "files", file(name)] + extra)
        guard result.status == 0 else { throw CLIError(message: "put failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func assetNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory + "/assets").sorted()
    }

    /// Temporary files (".NAME.vaultctl-PID-RANDOM.tmp") left in the root folder.
    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasSuffix(".tmp") }
    }

    func compartmentID() throws -> CompartmentID {
        let list = try json(try run(["compartment", "list", "--json"])) as? [[String: Any]]
        return try CompartmentID(hex: list?.first?["id"] as? String ?? "")
    }

    /// The vault, unlocked through the library (its journal keeps the events in memory: the audit log stays what the commands wrote).
    func unlocked() throws -> UnlockedVault {
        try Vault.open(at: directory, journal: RecordingJournal(), modules: VaultModules.all).unlock(with: .passphrase(try SecureBytes(copying: Array(CLIVault.passphrase.utf8))))
    }

    /// The bundle entries of the vault's audit log, with their unsealed byte counts.
    func bundleEvents() throws -> [BundleAuditEvent] { try BundleAuditEvent.all(in: try unlocked()) }

    /// A 6-digit prefix that none of `ids` starts with.
    func prefixMatchingNone(of ids: [String]) -> String {
        (0..<17).lazy.map { String(repeating: String(format: "%x", $0 % 16), count: 6) }.first { prefix in
            !ids.contains { $0.hasPrefix(prefix) }
        } ?? "abcdef"
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// N from "...; N bytes had already been written to standard output and cannot be taken back".
    static func releasedCount(in stderr: String) -> Int? {
        guard let range = stderr.range(of: " bytes had already been written to standard output") else { return nil }
        return Int(stderr[..<range.lowerBound].split(separator: " ").last ?? "")
    }
}
