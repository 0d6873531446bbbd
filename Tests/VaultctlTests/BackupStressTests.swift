import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Backups under load (SECURITY.md §13.1, §13.3): a large bundle streamed through every step, and
/// kill -9 at random moments of backup and restore-backup.
@Suite("Backups under load and kill -9", .serialized)
struct BackupStressTests {
    /// Writes `mebibytes` MiB of random bytes to `path`, 1 MiB at a time.
    static func writeRandomFile(_ path: String, mebibytes: Int) throws {
        let output = try FileDescriptor.createExclusive(path)
        let block = try SecureRandom.bytes(1 << 20)
        for index in 0..<mebibytes {
            var chunk = block
            chunk[0] = UInt8(truncatingIfNeeded: index)
            chunk[1] = UInt8(truncatingIfNeeded: index >> 8)
            try chunk.withUnsafeBytes { try output.write($0) }
        }
    }

    /// The largest resident set of any child waited for so far, in KiB (Linux's ru_maxrss).
    static func childrenPeakKiB() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return usage.ru_maxrss
    }

    @Test("a 1 GiB put backs up, verifies with the passphrase (every chunk opened) and restores into a vault whose get opens it, in under 60 s from put to get, no vaultctl process above 256 MiB resident")
    func oneGibibyteBackup() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Scans", "--register", "general"]))
        let big = fixture.root + "/scan.bin"
        try Self.writeRandomFile(big, mebibytes: 1024)
        let started = Date()
        let id = try expectSuccess(fixture.run(["put", "--compartment", "Scans", big])).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.removeItem(atPath: big)
        let backup = fixture.root + "/vault.backup"
        try expectSuccess(fixture.run(["backup", "-o", backup], unlock: false))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: backup)[.size] as? Int)
        #expect(size > 1 << 30, "the backup holds the whole bundle: \(size) bytes")
        let verified = try expectSuccess(CLI.run(["backup", "verify", backup, "--passphrase-file", fixture.passphraseFile, "--json"]))
        #expect(verified.stdout.contains("\"bundles_opened\" : 1"), "\(verified.stdout)")
        let target = fixture.root + "/restored"
        try expectSuccess(CLI.run(["restore-backup", backup, "--into", target, "--passphrase-file", fixture.passphraseFile]))
        try FileManager.default.removeItem(atPath: backup)
        try expectSuccess(CLI.run(["get", id, "-o", "/dev/null", "--vault", target, "--passphrase-file", fixture.passphraseFile]))
        let seconds = Date().timeIntervalSince(started)
        print("1 GiB: put, backup, verify with keys, restore-backup, get: \(Int(seconds)) s; peak child RSS \(Self.childrenPeakKiB() / 1024) MiB")
        #expect(seconds < 60, "took \(seconds) s")
        #expect(Self.childrenPeakKiB() < 256 * 1024, "a vaultctl process held \(Self.childrenPeakKiB() / 1024) MiB: the bundle is not streamed")
    }

    /// Starts `arguments`, kills it with SIGKILL after `delay` seconds (if it is still running), waits.
    static func killed(_ arguments: [String], after delay: Double) throws -> Bool {
        let running = try CLI.start(arguments)
        usleep(UInt32(delay * 1_000_000))
        let wasRunning = running.process.isRunning
        if wasRunning { kill(running.process.processIdentifier, SIGKILL) }
        running.process.waitUntilExit()
        _ = running.result()
        return wasRunning && running.process.terminationReason == .uncaughtSignal
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    @Test("kill -9 at 60 random moments of backup and 60 of restore-backup: the source vault always opens and verifies, a backup file is absent or whole, a restore target is absent or a whole vault; abandoned snapshots and staging folders are cleaned by the next run")
    func killDuringBackupAndRestore() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Scans", "--register", "general"]))
        try Self.writeRandomFile(fixture.root + "/scan.bin", mebibytes: 48)
        try expectSuccess(fixture.run(["put", "--compartment", "Scans", fixture.root + "/scan.bin"]))
        let backup = fixture.root + "/vault.backup"
        let backupTime = try Self.seconds { try expectSuccess(fixture.run(["backup", "-o", backup], unlock: false)) }
        var generator = SystemRandomNumberGenerator()
        var killedBackups = 0, killedRestores = 0
        for round in 0..<60 {
            let out = fixture.root + "/round\(round).backup"
            if try Self.killed(["backup", "-o", out, "--vault", fixture.directory], after: Double.random(in: 0.01...(backupTime * 1.1), using: &generator)) {
                killedBackups += 1
            }
            if FileManager.default.fileExists(atPath: out) {
                try expectSuccess(CLI.run(["backup", "verify", out]))
                try FileManager.default.removeItem(atPath: out)
            }
            let partial = try FileManager.default.contentsOfDirectory(atPath: fixture.root).filter { $0.hasSuffix(".tmp") }
            #expect(partial.count <= 1, "round \(round): partial outputs of killed backups pile up: \(partial)")
            try expectSuccess(CLI.run(["audit", "verify", "--read-only", "--vault", fixture.directory]))
        }
        try expectSuccess(fixture.run(["backup", "-o", backup, "--force"], unlock: false))
        let snapshots = try FileManager.default.contentsOfDirectory(atPath: fixture.directory).filter { $0.hasPrefix(".backup-snapshot") }
        #expect(snapshots.isEmpty, "abandoned snapshots stay: \(snapshots)")
        let partial = try FileManager.default.contentsOfDirectory(atPath: fixture.root).filter { $0.hasSuffix(".tmp") }
        #expect(partial.isEmpty, "a completed backup removes killed ones' partial outputs: \(partial)")
        try expectSuccess(fixture.run(["status"], unlock: false))

        let restoreTime = try Self.seconds {
            try expectSuccess(CLI.run(["restore-backup", backup, "--into", fixture.root + "/timed", "--passphrase-file", fixture.passphraseFile]))
        }
        for round in 0..<60 {
            let target = fixture.root + "/target"
            let arguments = ["restore-backup", backup, "--into", target, "--passphrase-file", fixture.passphraseFile]
            if try Self.killed(arguments, after: Double.random(in: 0.01...(restoreTime * 1.1), using: &generator)) { killedRestores += 1 }
            if FileManager.default.fileExists(atPath: target) {
                try expectSuccess(CLI.run(["audit", "verify", "--read-only", "--vault", target]))
                try expectSuccess(CLI.run(["ls", "--vault", target, "--passphrase-file", fixture.passphraseFile]))
                try FileManager.default.removeItem(atPath: target)
            }
            let staging = try FileManager.default.contentsOfDirectory(atPath: fixture.root).filter { $0.hasPrefix(".restoring-") }
            #expect(staging.count <= 1, "round \(round): abandoned staging folders pile up: \(staging)")
        }
        try expectSuccess(CLI.run(["restore-backup", backup, "--into", fixture.root + "/target", "--passphrase-file", fixture.passphraseFile]))
        let staging = try FileManager.default.contentsOfDirectory(atPath: fixture.root).filter { $0.hasPrefix(".restoring-") }
        #expect(staging.isEmpty, "a completed restore removes abandoned staging folders: \(staging)")
        print("kill -9: \(killedBackups) of 60 backups and \(killedRestores) of 60 restores killed while running")
        #expect(killedBackups >= 30 && killedRestores >= 30, "too few kills landed: \(killedBackups), \(killedRestores)")
    }
}
