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

    /// Runs vaultctl and samples its own resident high-water mark (`VmHWM` in /proc/PID/status) every
    /// 20 ms until it exits, so the figure is this process's alone; `getrusage(RUSAGE_CHILDREN)` would be
    /// the largest of every child the whole test run has waited for, other suites' included. Bounded:
    /// at most 30 minutes of samples.
    static func runMeasuringPeak(_ arguments: [String]) throws -> (result: CLI.Result, peakKiB: Int) {
        let running = try CLI.start(arguments)
        let statusPath = "/proc/\(running.process.processIdentifier)/status"
        var peak = 0
        for _ in 0..<90_000 where running.process.isRunning {
            peak = max(peak, highWaterMarkKiB(statusPath) ?? 0)
            usleep(20_000)
        }
        running.process.waitUntilExit()
        return (running.result(), peak)
    }

    /// The `VmHWM:` line of a /proc status file, in KiB; nil once the process is gone.
    static func highWaterMarkKiB(_ statusPath: String) -> Int? {
        guard let text = try? String(contentsOfFile: statusPath, encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
    }

    @Test("a 1 GiB put backs up, verifies with the passphrase (every chunk opened) and restores into a vault whose get opens it, no vaultctl process above 256 MiB resident (the time is printed; speed is the benchmarks' business)")
    func oneGibibyteBackup() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Scans", "--register", "general"]))
        let big = fixture.root + "/scan.bin"
        try Self.writeRandomFile(big, mebibytes: 1024)
        let started = Date()
        let unlock = ["--passphrase-file", fixture.passphraseFile]
        var peaks: [String: Int] = [:]
        @discardableResult func measured(_ step: String, _ arguments: [String]) throws -> CLI.Result {
            let (result, peakKiB) = try Self.runMeasuringPeak(arguments)
            peaks[step] = peakKiB
            return try expectSuccess(result)
        }
        let id = try measured("put", ["put", "--compartment", "Scans", big, "--vault", fixture.directory] + unlock)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.removeItem(atPath: big)
        let backup = fixture.root + "/vault.backup"
        try measured("backup", ["backup", "-o", backup, "--vault", fixture.directory])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: backup)[.size] as? Int)
        #expect(size > 1 << 30, "the backup holds the whole bundle: \(size) bytes")
        let verified = try measured("backup verify", ["backup", "verify", backup, "--json"] + unlock)
        #expect(verified.stdout.contains("\"bundles_opened\" : 1"), "\(verified.stdout)")
        let target = fixture.root + "/restored"
        try measured("restore-backup", ["restore-backup", backup, "--into", target] + unlock)
        try FileManager.default.removeItem(atPath: backup)
        try measured("get", ["get", id, "-o", "/dev/null", "--vault", target] + unlock)
        let seconds = Date().timeIntervalSince(started)
        let figures = peaks.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value / 1024) MiB" }.joined(separator: ", ")
        print("1 GiB: put, backup, verify with keys, restore-backup, get: \(Int(seconds)) s; peak RSS \(figures)")
        #expect(peaks.count == 5 && peaks.values.allSatisfy { $0 > 0 }, "every step was sampled: \(figures)")
        for (step, peakKiB) in peaks {
            #expect(peakKiB < 256 * 1024, "\(step) held \(peakKiB / 1024) MiB: the bundle is not streamed")
        }
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

    @Test("kill -9 at 100 random moments of backup and 100 of restore-backup (issue 14: at least 100 rounds each): the source vault always opens and verifies, a backup file is absent or whole, a restore target is absent or a whole vault; abandoned snapshots and staging folders are cleaned by the next run")
    func killDuringBackupAndRestore() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Scans", "--register", "general"]))
        try Self.writeRandomFile(fixture.root + "/scan.bin", mebibytes: 48)
        try expectSuccess(fixture.run(["put", "--compartment", "Scans", fixture.root + "/scan.bin"]))
        let backup = fixture.root + "/vault.backup"
        let backupTime = try Self.seconds { try expectSuccess(fixture.run(["backup", "-o", backup], unlock: false)) }
        var generator = SystemRandomNumberGenerator()
        var killedBackups = 0, killedRestores = 0
        for round in 0..<100 {
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
        for round in 0..<100 {
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
        print("kill -9: \(killedBackups) of 100 backups and \(killedRestores) of 100 restores killed while running")
        #expect(killedBackups >= 30 && killedRestores >= 30, "too few kills landed: \(killedBackups), \(killedRestores)")
    }
}
