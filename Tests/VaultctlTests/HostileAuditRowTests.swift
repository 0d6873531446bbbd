import CryptoVault
import Foundation
import Testing

/// Reproductions of issue 13's traps on a hostile audit log and on failed writes: each command ends
/// with a clean error and a documented exit code, never a signal.
@Suite("A hostile audit log, checkpoint or output stream: clean errors, never a trap")
struct HostileAuditRowTests {
    static func edit(_ fixture: CLIVault, _ sql: String) throws {
        try Database(path: fixture.directory + "/" + Vault.databaseName, create: false).execute(sql)
    }

    @Test("the last entry's seq moved up by one: status finishes and says entry-sequence, audit verify fails naming the gap, unlock refuses to extend it")
    func lastSeqMovedUp() throws {
        let fixture = try CLIVault()
        try Self.edit(fixture, """
            DROP TRIGGER audit_entries_no_update;
            UPDATE audit_entries SET seq = seq + 1 WHERE seq = (SELECT max(seq) FROM audit_entries);
            """)
        let status = try fixture.run(["status"], unlock: false)
        #expect(status.status == 0 && status.stderr.contains("entry-sequence"), "\(status.status) \(status.stderr)")
        let verify = try fixture.run(["audit", "verify"], unlock: false)
        #expect(verify.status == 1 && verify.stderr.contains("FAILED") && verify.stderr.contains("is missing"), "\(verify.status) \(verify.stderr)")
        let unlock = try fixture.run(["unlock"])
        #expect(unlock.status == 1 && unlock.stderr.contains("entry-sequence"), "\(unlock.status) \(unlock.stderr)")
    }

    @Test("an audit row with seq 2^63-1: every command ends cleanly; audit verify fails (exit 1)")
    func maximalSeq() throws {
        let fixture = try CLIVault()
        try Self.edit(fixture, "INSERT INTO audit_entries (seq, entry, leaf_hash) SELECT 9223372036854775807, entry, leaf_hash FROM audit_entries WHERE seq = 0")
        let status = try fixture.run(["status"], unlock: false)
        #expect(status.status == 0 && status.stderr.contains("entry-sequence"), "\(status.status) \(status.stderr)")
        let verify = try fixture.run(["audit", "verify"], unlock: false)
        #expect(verify.status == 1 && verify.stderr.contains("9223372036854775807"), "\(verify.status) \(verify.stderr)")
        let unlock = try fixture.run(["unlock"])
        #expect(unlock.status == 1 && unlock.stderr.contains("entry-sequence"), "\(unlock.status) \(unlock.stderr)")
    }

    @Test("a checkpoint's tree_size edited to 2^63-1: audit verify fails as a checkpoint, and every write says signing is stopped")
    func inflatedCheckpointSize() throws {
        let fixture = try CLIVault()
        try Self.edit(fixture, """
            DROP TRIGGER audit_checkpoints_no_update;
            UPDATE audit_checkpoints SET tree_size = 9223372036854775807 WHERE id = (SELECT max(id) FROM audit_checkpoints);
            """)
        let verify = try fixture.run(["audit", "verify"], unlock: false)
        #expect(verify.status == 1 && verify.stderr.contains("stored tree_size 9223372036854775807"), "\(verify.status) \(verify.stderr)")
        for _ in 0..<2 {
            let unlock = try fixture.run(["unlock"])
            #expect(unlock.status == 0 && unlock.stderr.contains("no checkpoint can be signed"), "never silently: \(unlock.stderr)")
        }
    }

    /// Runs vaultctl with stdout and stderr sent where the test says (a path such as /dev/full).
    static func run(_ arguments: [String], stdout: String, stderr: String) throws -> (status: Int32, signalled: Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: stdout)
        process.standardError = FileHandle(forWritingAtPath: stderr)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    @Test("stdout on a full disk: exit 74 with the reason on stderr, never a trap")
    func fullStdout() throws {
        let fixture = try CLIVault()
        let errors = fixture.root + "/stderr"
        FileManager.default.createFile(atPath: errors, contents: nil)
        for arguments in [["status", "--vault", fixture.directory], ["status", "--json", "--vault", fixture.directory], ["--help"]] {
            let result = try Self.run(arguments, stdout: "/dev/full", stderr: errors)
            let said = String(decoding: FileManager.default.contents(atPath: errors) ?? Data(), as: UTF8.self)
            #expect(!result.signalled && result.status == 74, "\(arguments): \(result)")
            #expect(said.contains("cannot write the output: standard output"), "\(said)")
        }
    }

    @Test("stderr on a full disk: a failure keeps its own code; a command that did its work but could not say so exits 74; never a trap")
    func fullStderr() throws {
        let fixture = try CLIVault()
        let out = fixture.root + "/stdout"
        FileManager.default.createFile(atPath: out, contents: nil)
        let missing = try Self.run(["status", "--vault", fixture.root + "/nothing"], stdout: out, stderr: "/dev/full")
        #expect(!missing.signalled && missing.status == 66, "\(missing)")
        // An unlock that succeeds with a warning on stderr (signing is stopped by an edited checkpoint).
        try Self.edit(fixture, """
            DROP TRIGGER audit_checkpoints_no_update;
            UPDATE audit_checkpoints SET tree_size = 9223372036854775807 WHERE id = (SELECT max(id) FROM audit_checkpoints);
            """)
        let warned = try Self.run(["unlock", "--vault", fixture.directory, "--passphrase-file", fixture.passphraseFile],
                                  stdout: out, stderr: "/dev/full")
        #expect(!warned.signalled && warned.status == 74, "\(warned)")
    }
}
