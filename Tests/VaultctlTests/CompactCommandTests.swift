import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// `vaultctl compact` (SECURITY.md §4.9): the database rewritten without its free space, the vault
/// as it was (it verifies, every document reads the same), one `vault.compact` entry with both
/// sizes, no copy of the database in a temporary file outside the folder, and refused under a serve.
@Suite(.serialized)
struct CompactCommandTests {
    /// A project whose document was rewritten many times: blocks resealed and removed, pages left
    /// half empty and free. Returns the document's text as `doc show` prints it.
    static func vaultWithHistory(_ vault: CLIVault) throws -> String {
        try WritingCommandTests.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        try WritingCommandTests.ok(vault, ["doc", "add", "Harbour", "Arrival"])
        // Long paragraphs first, then short ones in their place: their pages are left mostly empty.
        for round in 0..<4 {
            let paragraphs = (0..<40).map { "Paragraph \($0) of round \(round): " + String(repeating: "the boat came in late and grey. ", count: round == 0 ? 60 : 2) }
            try WritingCommandTests.ok(vault, ["doc", "write", "Harbour", "Arrival"], stdin: paragraphs.joined(separator: "\n\n") + "\n")
        }
        return try WritingCommandTests.ok(vault, ["doc", "show", "Harbour", "Arrival"])
    }

    static func modificationTime(_ path: String) -> timespec {
        var status = stat()
        _ = stat(path, &status)
        return status.st_mtim
    }

    @Test func compactGivesBackTheFreeSpaceAndTheVaultVerifiesAndReadsAsBeforeWithOneEntryNamingBothSizes() throws {
        let vault = try CLIVault()
        let text = try Self.vaultWithHistory(vault)
        let sizeBefore = try #require(try FileManager.default.attributesOfItem(atPath: vault.directory + "/vault.db")[.size] as? Int)
        // SQLite would put a temporary copy of the database here (SQLITE_TMPDIR first, then TMPDIR);
        // made and unlinked at once, it would still change the folder's modification time.
        let temporary = vault.root + "/sqlite-tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let untouched = Self.modificationTime(temporary)
        var environment = ProcessInfo.processInfo.environment
        environment["SQLITE_TMPDIR"] = temporary
        environment["TMPDIR"] = temporary

        let result = try CLI.run(["compact", "--json", "--vault", vault.directory, "--passphrase-file", vault.passphraseFile], environment: environment)

        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Int], "\(result.stdout)")
        let before = try #require(report["bytes_before"]), after = try #require(report["bytes_after"])
        // The unlock's entry is appended before the compaction measures: the size before is at least the file's.
        #expect(before >= sizeBefore && after < before && report["bytes_freed"] == before - after, "\(sizeBefore): \(report)")
        let now = Self.modificationTime(temporary)
        #expect(now.tv_sec == untouched.tv_sec && now.tv_nsec == untouched.tv_nsec, "a temporary file was made outside the vault's folder")
        let sizeAfter = try #require(try FileManager.default.attributesOfItem(atPath: vault.directory + "/vault.db")[.size] as? Int)
        #expect(sizeAfter < sizeBefore, "\(sizeBefore) -> \(sizeAfter)")

        let verify = try vault.run(["audit", "verify"], unlock: false)
        #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        #expect(try WritingCommandTests.ok(vault, ["doc", "show", "Harbour", "Arrival"]) == text)
        let log = try WritingCommandTests.ok(vault, ["audit", "log", "--json", "--action", "vault.compact"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]], "\(log)")
        let subject = String(format: "%016llx%016llx", UInt64(before), UInt64(after))
        let subjects = entries.compactMap { $0["subject"] as? String }
        #expect(entries.count == 1 && subjects == [subject], "\(entries)")
    }

    @Test func compactPrintsTheSizesForPeople() throws {
        let vault = try CLIVault()
        _ = try Self.vaultWithHistory(vault)
        let output = try WritingCommandTests.ok(vault, ["compact"])
        #expect(output.hasPrefix("Compacted \(vault.directory)/vault.db: ") && output.contains(" KiB before, ") && output.contains(" KiB freed)."), "\(output)")
    }

    @Test func compactWhileServeHoldsTheVaultIsRefusedAndChangesNothingThenRunsOnceItStops() throws {
        let vault = try CLIVault()
        _ = try Self.vaultWithHistory(vault)
        let daemon = try CLI.start(["serve", "--vault", vault.directory, "--passphrase-file", vault.passphraseFile])
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        try DaemonCommandTests.Fixture.waitForListening(daemon)
        let before = InMemoryDaemonTests.vaultFiles(vault)

        let refused = try vault.run(["compact"])
        #expect(refused.status == 73, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("'vaultctl serve' is running on this vault, and a compaction would rewrite its database under it")
                && refused.stderr.contains("nothing was changed") && refused.stderr.contains("vaultctl serve --stop"), "\(refused.stderr)")
        #expect(InMemoryDaemonTests.vaultFiles(vault) == before, "the refused compaction changed the vault's files")
        #expect(daemon.process.isRunning, "the daemon goes on")

        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
        let compacted = try vault.run(["compact", "--json"])
        #expect(compacted.status == 0, "\(compacted.stderr)")
        let log = try WritingCommandTests.ok(vault, ["audit", "log", "--json", "--action", "vault.compact"])
        #expect((try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]])?.count == 1, "\(log)")
    }
}
