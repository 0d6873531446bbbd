import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `vaultctl backup`, `backup verify` and `restore-backup` (SECURITY.md §13).
@Suite("Backup and restore-backup")
struct BackupCommandTests {
    /// A vault with a compartment and one stored file; returns the bundle id.
    static func vaultWithAFile(_ fixture: CLIVault, contents: String = "session notes, 1 December\n") throws -> String {
        try expectSuccess(fixture.run(["compartment", "create", "Notes", "--register", "general"]))
        try fixture.write(contents, to: fixture.root + "/note.txt")
        return try expectSuccess(fixture.run(["put", "--compartment", "Notes", fixture.root + "/note.txt"])).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a backup taken while other processes keep putting and recording restores into a new folder that verifies, opens every bundle, and logs vault.restore-backup")
    func backupDuringAnAppendStorm() throws {
        let fixture = try CLIVault()
        _ = try Self.vaultWithAFile(fixture)
        let writers = try (0..<3).map { index -> CLI.Running in
            try fixture.write(String(repeating: "line \(index)\n", count: 2000), to: fixture.root + "/storm\(index)")
            let script = "for i in $(seq 1 15); do '\(CLI.binary)' put --compartment Notes '\(fixture.root)/storm\(index)' --vault '\(fixture.directory)' --passphrase-file '\(fixture.passphraseFile)' >/dev/null || exit 1; done"
            return try CLI.start(["-c", script], executable: "/bin/sh")
        }
        usleep(300_000)
        let backup = fixture.root + "/vault.backup"
        let made = try fixture.run(["backup", "-o", backup, "--json"], unlock: false)
        for writer in writers { writer.process.waitUntilExit(); #expect(writer.process.terminationStatus == 0, "\(writer.result().stderr)") }
        try #require(made.status == 0, "\(made.stderr)")

        let checked = try CLI.run(["backup", "verify", backup, "--passphrase-file", fixture.passphraseFile, "--json"])
        #expect(checked.status == 0, "\(checked.stdout) \(checked.stderr)")
        let target = fixture.root + "/restored"
        try expectSuccess(CLI.run(["restore-backup", backup, "--into", target, "--passphrase-file", fixture.passphraseFile]))
        let restored = try expectSuccess(CLI.run(["audit", "verify", "--json", "--vault", target]))
        #expect(restored.stdout.contains("\"verified\" : true"))
        let listed = try expectSuccess(CLI.run(["ls", "--json", "--vault", target, "--passphrase-file", fixture.passphraseFile]))
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count >= 1)
        for row in rows {
            let id = try #require(row["id"] as? String)
            try expectSuccess(CLI.run(["get", id, "-o", "/dev/null", "--vault", target, "--passphrase-file", fixture.passphraseFile]))
        }
        let log = try expectSuccess(CLI.run(["audit", "log", "--json", "--vault", target, "--passphrase-file", fixture.passphraseFile]))
        #expect(log.stdout.contains("vault.restore-backup"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.directory).filter { $0.hasPrefix(".backup-snapshot") }
        #expect(leftovers.isEmpty, "the snapshot file is removed")
    }

    @Test("restore-backup refuses a folder that holds a vault or anything else (73), and writes nothing there")
    func restoreRefusesAnExistingVault() throws {
        let fixture = try CLIVault()
        _ = try Self.vaultWithAFile(fixture)
        let backup = fixture.root + "/b"
        try expectSuccess(fixture.run(["backup", "-o", backup], unlock: false))
        let onto = try CLI.run(["restore-backup", backup, "--into", fixture.directory])
        #expect(onto.status == 73 && onto.stderr.contains("already holds a vault"), "\(onto.stderr)")
        try FileManager.default.createDirectory(atPath: fixture.root + "/busy", withIntermediateDirectories: true)
        try fixture.write("x", to: fixture.root + "/busy/keep")
        let busy = try CLI.run(["restore-backup", backup, "--into", fixture.root + "/busy"])
        #expect(busy.status == 73 && busy.stderr.contains("not empty"), "\(busy.stderr)")
    }

    @Test("a small backup with a byte flipped (every byte of the header, the first records' framing and the trailer, and every 499th byte of the data) or truncated anywhere is refused by the reader with corruptBackup")
    func everyFlipAndTruncationIsRefused() throws {
        let fixture = try CLIVault()
        _ = try Self.vaultWithAFile(fixture, contents: "x")
        let backup = fixture.root + "/b"
        try expectSuccess(fixture.run(["backup", "-o", backup], unlock: false))
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: backup)))
        let scratch = fixture.root + "/scratch"
        let damaged = fixture.root + "/damaged"
        func refusal(_ bytes: [UInt8]) -> CryptoVaultErrorCode? {
            try? FileManager.default.removeItem(atPath: scratch)
            mkdir(scratch, 0o700)
            FileManager.default.createFile(atPath: damaged, contents: Data(bytes))
            do { _ = try BackupReader.extract(damaged, into: scratch, durable: false); return nil } catch let error as CryptoVaultError { return error.code } catch { return nil }
        }
        #expect(refusal(original) == nil, "the intact backup is accepted")
        var accepted: [Int] = []
        let offsets = Array(0..<300) + Array(stride(from: 300, to: original.count - 300, by: 499)) + Array((original.count - 300)..<original.count)
        for offset in offsets {
            var bytes = original
            bytes[offset] ^= 0x01
            if refusal(bytes) != .corruptBackup { accepted.append(offset) }
        }
        #expect(accepted.isEmpty, "flips accepted at offsets \(accepted.prefix(10))")
        var truncations: [Int] = []
        for length in Array(0..<200) + Array(stride(from: 200, to: original.count, by: 997)) + Array((original.count - 100)..<original.count) {
            if refusal(Array(original[0..<length])) != .corruptBackup { truncations.append(length) }
        }
        #expect(truncations.isEmpty, "truncations accepted: \(truncations.prefix(10))")
        #expect(refusal(original + [0]) == .corruptBackup, "a trailing byte is refused")
    }

    @Test("backup verify and restore-backup refuse a flipped and a truncated file with exit 65 and the reason, and restore leaves no folder")
    func damagedBackupIsRefusedByTheCommands() throws {
        let fixture = try CLIVault()
        _ = try Self.vaultWithAFile(fixture)
        let backup = fixture.root + "/b"
        try expectSuccess(fixture.run(["backup", "-o", backup], unlock: false))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: backup)))
        let flipped = fixture.root + "/flipped", truncated = fixture.root + "/truncated"
        FileManager.default.createFile(atPath: truncated, contents: Data(bytes[0..<(bytes.count - 40)]))
        bytes[bytes.count - 200] ^= 0x80
        FileManager.default.createFile(atPath: flipped, contents: Data(bytes))
        for (file, reason) in [(flipped, "does not match its SHA-256"), (truncated, "truncated")] {
            let verified = try CLI.run(["backup", "verify", file])
            #expect(verified.status == 65 && verified.stderr.contains("the backup is refused") && verified.stderr.contains(reason), "\(verified.stderr)")
            let restored = try CLI.run(["restore-backup", file, "--into", fixture.root + "/restored"])
            #expect(restored.status == 65 && restored.stderr.contains(reason), "\(restored.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.root + "/restored"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root).allSatisfy { !$0.hasPrefix(".restoring") })
        }
        try fixture.write("not the passphrase\n", to: fixture.root + "/wrong")
        let locked = try CLI.run(["backup", "verify", backup, "--passphrase-file", fixture.root + "/wrong"])
        #expect(locked.status == 2, "\(locked.stderr)")
    }
}
