import Appliance
import AuditChain
import CryptoVault
import Foundation
import Testing

/// A copy of the vault folder taken while a command writes mixes two moments of its database: that
/// is reported as an inconsistent copy, never as tampering; real tampering still says "altered".
/// And verifying a copy changes nothing in it.
@Suite("Torn copies and read-only verification")
struct TornCopyTests {
    @Test("a copy whose database is from before some commands and whose write-ahead log is from a command still writing: audit verify says 'inconsistent copy', never 'altered' or 'damaged'")
    func tornCopyIsNotTampering() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Notes", "--register", "marketing"]))
        let torn = fixture.root + "/torn"
        try FileManager.default.createDirectory(atPath: torn + "/assets", withIntermediateDirectories: true)
        // The database at rest (its log truncated), as `cp -r` copies it first...
        try FileManager.default.copyItem(atPath: fixture.directory + "/vault.db", toPath: torn + "/vault.db")
        for index in 0..<30 { try expectSuccess(fixture.run(["compartment", "create", "More \(index)", "--register", "marketing"])) }
        // ...and its write-ahead log later, while another command is in the middle of writing.
        let writer = try Vault.open(at: fixture.directory, journal: AuditLog(), modules: VaultModules.all)
        for _ in 0..<200 { try writer.recordLocked(.auditVerify) }
        try FileManager.default.copyItem(atPath: fixture.directory + "/vault.db-wal", toPath: torn + "/vault.db-wal")
        _ = writer

        let verified = try CLI.run(["audit", "verify", "--read-only", "--vault", torn])
        #expect(verified.status != 0, "the torn copy cannot verify: \(verified.stdout)")
        #expect(verified.stderr.contains("inconsistent copy: taken while the vault was being written"), "\(verified.stderr)")
        #expect(!verified.stderr.contains("altered") && !verified.stderr.contains("damaged"), "\(verified.stderr)")
    }

    @Test("real tampering in a copy at rest (an entry's bytes changed) is still reported as altered, not as an inconsistent copy")
    func tamperingIsStillAltered() throws {
        let fixture = try CLIVault()
        for index in 0..<5 { try expectSuccess(fixture.run(["compartment", "create", "C\(index)", "--register", "marketing"])) }
        let copy = fixture.root + "/copy"
        try FileManager.default.createDirectory(atPath: copy + "/assets", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.directory + "/vault.db", toPath: copy + "/vault.db")
        do {
            let database = try Database(path: copy + "/vault.db", create: false)
            let row = try #require(try database.queryOne("SELECT entry FROM audit_entries WHERE seq = 3"))
            // The tamperer drops the append-only triggers first, as anyone with the file can.
            for trigger in try database.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_entries'") {
                try database.execute("DROP TRIGGER \"\(try trigger.text("name"))\"")
            }
            var entry = try row.blob("entry")
            entry[entry.count - 1] ^= 0x01
            try database.query("UPDATE audit_entries SET entry = ? WHERE seq = 3", [.blob(entry)])
            try database.truncateLog()
        }
        let verified = try CLI.run(["audit", "verify", "--read-only", "--vault", copy])
        #expect(verified.status == 1, "\(verified.stdout) \(verified.stderr)")
        #expect(verified.stderr.contains("entry 3 was altered"), "\(verified.stderr)")
        #expect(!verified.stderr.contains("inconsistent copy"), "\(verified.stderr)")
    }

    @Test("audit verify --read-only writes nothing: the copy's files are byte for byte the same, and its log has no audit.verify entry")
    func readOnlyVerificationWritesNothing() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", "Notes", "--register", "marketing"]))
        let copy = fixture.root + "/copy"
        try FileManager.default.createDirectory(atPath: copy + "/assets", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture.directory + "/vault.db", toPath: copy + "/vault.db")
        let before = try Data(contentsOf: URL(fileURLWithPath: copy + "/vault.db"))
        for _ in 0..<2 {
            let verified = try CLI.run(["audit", "verify", "--read-only", "--json", "--vault", copy])
            #expect(verified.status == 0, "\(verified.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy + "/vault.db")) == before, "the database file changed")
        let walSize = (try? FileManager.default.attributesOfItem(atPath: copy + "/vault.db-wal")[.size] as? Int) ?? 0
        #expect(walSize == 0, "no write-ahead log was written")
        let database = try Database(path: copy + "/vault.db", create: false, readOnly: true)
        #expect(try database.queryOne("SELECT count(*) AS n FROM audit_entries WHERE entry LIKE '%audit.verify%'")?.integer("n") == 0)
    }
}
