import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// In-memory mode changes nothing of the vault (issue 17 "writes nothing", SECURITY.md §19.10, review
/// 17 F14 and F3): only the commands on its allow-list run (reads, status, sync from an own device,
/// repair); every other is refused with the mode and what to run instead (exit 65), in the client
/// and in the daemon; and what the allowed commands read needs no audit entry the vault cannot keep.
@Suite(.serialized)
struct InMemoryRefusalTests {
    /// A vault with a compartment holding one stored bundle, the database saved as it was, and then
    /// its writing store damaged (a dropped table) so that every command works in memory.
    final class Fixture {
        let cli: BundleCLI
        let bundleID: String
        let plaintext: String
        let saved: String

        init(register: String = "general") throws {
            cli = try BundleCLI()
            try Self.require(try cli.run(["compartment", "create", "memos", "--register", register]))
            plaintext = try cli.randomFile("memo.txt", count: 200_000)
            let put = try cli.run(["put", "--compartment", "memos", plaintext])
            try Self.require(put)
            bundleID = put.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            saved = cli.root + "/saved"
            try FileManager.default.createDirectory(atPath: saved, withIntermediateDirectories: true)
            let database = try Database(path: cli.directory + "/vault.db", create: false, readOnly: false)
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            try FileManager.default.copyItem(atPath: cli.directory + "/vault.db", toPath: saved + "/vault.db")
            try RepairFromDeviceTests.damage(cli.vault, .droppedTable)
        }

        static func require(_ result: CLI.Result) throws {
            guard result.status == 0 else { throw CLIError(message: "\(result.stdout)\(result.stderr)") }
        }

        /// The vault's bundle files, by name, with their bytes (read through nothing but the vault's folder).
        var assets: [String: Data] { InMemoryModeTests.tree(cli.directory + "/assets") }

        /// Puts back the database saved before the damage: the vault is in normal mode again, with the
        /// bundle files as they are now.
        func undamage() throws {
            for suffix in ["-wal", "-shm"] { unlink(cli.directory + "/vault.db" + suffix) }
            try FileManager.default.removeItem(atPath: cli.directory + "/vault.db")
            try FileManager.default.copyItem(atPath: saved + "/vault.db", toPath: cli.directory + "/vault.db")
        }

        /// `get` of the stored bundle: its bytes are the file put, or the reason they are not.
        func expectBundleOpens(_ comment: Comment) throws {
            let got = try cli.runCapturingBytes(["get", bundleID])
            let expected = [UInt8](try #require(FileManager.default.contents(atPath: plaintext)))
            #expect(got.status == 0 && got.stdout == expected, "\(comment): \(got.stderr)")
        }
    }

    static let notice = "vaultctl: in-memory mode: the writing store of "

    @Test func rotateAndRewrapThroughAnInMemoryDaemonAreRefusedAndTheVaultsBundlesStillOpen() throws {
        let f = try Fixture()
        let before = f.assets
        #expect(before.count == 1, "\(before.keys)")
        let daemon = try CLI.start(["serve", "--vault", f.cli.directory, "--passphrase-file", f.cli.passphraseFile])
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        try DaemonCommandTests.Fixture.waitForListening(daemon)

        // Both run in the daemon (no passphrase here), whose copy in memory lives as long as it does.
        for command in [["compartment", "rotate", "memos"], ["compartment", "rewrap", "memos"]] {
            let result = try f.cli.run(command, unlock: false)
            #expect(result.status == 65, "\(command) ran in in-memory mode: \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("in in-memory mode") && result.stderr.contains("vaultctl repair --from DEVICE"), "\(result.stderr)")
        }
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()

        #expect(f.assets == before, "a bundle file of the vault was written in in-memory mode")
        try f.expectBundleOpens("in in-memory mode, after the daemon")
        try f.undamage()
        try f.expectBundleOpens("in normal mode, after the daemon")
    }
}

extension InMemoryRefusalTests {
    /// Commands that change the vault (or would leave an audit entry only in the copy), one of each
    /// kind: each is refused before it runs, with the mode, the reason and what to run instead.
    static let refused: [[String]] = [
        ["compartment", "rotate", "memos"], ["compartment", "rewrap", "memos"], ["compartment", "destroy", "memos", "--yes"],
        ["compartment", "create", "more", "--register", "general"], ["rm", "BUNDLE", "--yes"], ["seal", "--compartment", "memos", "PLAIN"],
        ["put", "--compartment", "memos", "PLAIN"], ["export", "Field notes", "--format", "markdown", "-o", "OUT"],
        ["egress", "check", "--to", "file:x", "--from", "memos", "PLAIN"], ["session", "start", "--compartment", "memos", "--purpose", "x"],
        ["project", "create", "Scratch", "--register", "fiction"], ["audit", "export", "-o", "OUT"], ["backup", "-o", "OUT"],
        ["sync", "pause"], ["share", "memos", "--peer", "abc", "--role", "viewer", "--address", "127.0.0.1:9"], ["passwd"],
        ["device", "rename", "old", "new"],
    ]

    @Test func everyCommandOffTheAllowListIsRefusedWithTheModeTheReasonAndWhatToRun() throws {
        let f = try Fixture()
        let before = InMemoryModeTests.tree(f.cli.directory)
        for command in Self.refused {
            let arguments = command.map { ["BUNDLE": f.bundleID, "PLAIN": f.plaintext, "OUT": f.cli.root + "/out"][$0] ?? $0 }
            // No passphrase: the refusal comes before anything is asked or opened.
            let result = try f.cli.run(arguments, unlock: false)
            #expect(result.status == 65, "\(command): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("is refused in in-memory mode (the writing store cannot be opened: the table writing_blocks is missing)"),
                    "\(command): \(result.stderr)")
            #expect(result.stderr.contains("hint: 'vaultctl repair --from DEVICE' rebuilds the writing store"), "\(command): \(result.stderr)")
        }
        #expect(InMemoryModeTests.tree(f.cli.directory) == before, "a refused command changed the vault's files")
        #expect(!FileManager.default.fileExists(atPath: f.cli.root + "/out"), "a refused command wrote its output")
    }

    @Test func readsStillRunInMemoryAndSaySo() throws {
        let f = try Fixture()
        for command in [["status"], ["ls"], ["compartment", "list"], ["audit", "verify"], ["project", "list"]] {
            // status and audit verify take no passphrase: they open the vault without unlocking it.
            let result = try f.cli.run(command, unlock: !["status", "audit"].contains(command[0]))
            #expect(result.status == 0 && result.stderr.contains(Self.notice), "\(command): \(result.stdout)\(result.stderr)")
        }
        try f.expectBundleOpens("get in in-memory mode")
    }

    @Test func aPrivilegedReadIsRefusedInMemoryWithTheReasonForItIsRecordedOnlyInTheCopy() throws {
        let f = try Fixture(register: "healthcare")
        let got = try f.cli.run(["get", f.bundleID, "-o", f.cli.root + "/read", "--purpose", "treatment review"])
        #expect(got.status == 65, "\(got.stdout)\(got.stderr)")
        #expect(got.stderr.contains("a privileged session is refused in in-memory mode (the writing store cannot be opened: "), "\(got.stderr)")
        #expect(got.stderr.contains("its audit entry would be kept only in the copy in memory"), "\(got.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.cli.root + "/read"), "privileged plaintext was written")
        try f.undamage()
        let normal = try f.cli.run(["get", f.bundleID, "-o", f.cli.root + "/read", "--purpose", "treatment review"])
        #expect(normal.status == 0 && FileManager.default.contents(atPath: f.cli.root + "/read") == FileManager.default.contents(atPath: f.plaintext),
                "\(normal.stderr)")
    }
}
