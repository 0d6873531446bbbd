import CryptoVault
import Foundation
import Testing
import TestSupport

/// The schema 11 vault made by main's vaultctl at d8e0c78 (two compartments, one stored bundle), as a
/// user of that release would bring it to this one.
@Suite("vaultctl on a vault made by an older release")
struct OlderVaultCommandTests {
    @Test("status refuses the schema 11 vault unchanged (exit 65); unlock upgrades it; ls, get and audit verify then work on it")
    func schema11VaultThroughTheCommands() throws {
        let fixture = try CLIVault(create: false)
        let copy = try PackageFiles.copyOfSchema11Vault()
        defer { try? FileManager.default.removeItem(atPath: copy.root) }
        try FileManager.default.moveItem(atPath: copy.directory, toPath: fixture.directory)
        try fixture.write(copy.passphrase + "\n", to: fixture.passphraseFile)

        let status = try fixture.run(["status"], unlock: false)
        #expect(status.status == 65 && status.stderr.contains("run a write command"), "\(status.stderr)")
        let unlocked = try fixture.run(["unlock"])
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let upgraded = try fixture.run(["status", "--json"], unlock: false)
        let report = try JSONSerialization.jsonObject(with: Data(upgraded.stdout.utf8)) as? [String: Any]
        #expect(upgraded.status == 0 && report?["schema_version"] as? Int == 13, "\(upgraded.stdout) \(upgraded.stderr)")

        let listed = try fixture.run(["ls"])
        #expect(listed.status == 0 && listed.stdout.contains("7a3daae0"), "\(listed.stdout) \(listed.stderr)")
        let got = try fixture.run(["get", "7a3daae0"])
        #expect(got.status == 0 && got.stdout.utf8.count == 22, "\(got.stderr)")
        let verified = try fixture.run(["audit", "verify"], unlock: false)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        let log = try fixture.run(["audit", "log"])
        #expect(log.stdout.contains("vault.upgrade"), "\(log.stdout)")
    }

    @Test("a vault with sealed records made before the record-id index (main at 2ddaa55) is upgraded by a write: the index and its migration are there, the document reads and takes an edit that reseals one block")
    func recordsVaultBeforeTheRecordIDIndex() throws {
        let fixture = try CLIVault(create: false)
        let fixtures = PackageFiles.url("Tests/CryptoVaultTests/Fixtures").path
        try FileManager.default.copyItem(atPath: fixtures + "/vault-records-2ddaa55", toPath: fixture.directory)
        // git keeps no empty folder: the vault's (empty) assets/ is made here.
        try FileManager.default.createDirectory(atPath: fixture.directory + "/assets", withIntermediateDirectories: true)
        let passphrase = try String(contentsOfFile: fixtures + "/vault-records-2ddaa55.passphrase", encoding: .utf8)
        try fixture.write(passphrase, to: fixture.passphraseFile)
        let database = fixture.directory + "/" + Vault.databaseName
        func hasIndex() throws -> Bool {
            try Database(path: database, create: false, readOnly: true)
                .queryOne("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'sealed_records_by_record_id'")?.integer("n") == 1
        }
        #expect(try !hasIndex())

        let edited = "First paragraph of the memo.\n\nSecond paragraph, edited after the upgrade:\n\n- one\n- two\n"
        let write = try fixture.run(["doc", "write", "Memo", "Draft", "-"], stdin: edited)
        #expect(write.status == 0 && write.stdout.contains("1 block(s) sealed, 3 unchanged"), "\(write.stdout) \(write.stderr)")
        #expect(try hasIndex())
        let applied = try Database(path: database, create: false, readOnly: true)
            .query("SELECT name FROM module_migrations WHERE module = 'cryptovault'").map { try $0.text("name") }
        #expect(applied.contains("sealed-records-by-record-id"), "\(applied)")
        let shown = try fixture.run(["doc", "show", "Memo", "Draft"])
        #expect(shown.status == 0 && shown.stdout == edited, "\(shown.stdout) \(shown.stderr)")
        let versions = try fixture.run(["snapshot", "list", "Memo", "Draft"])
        #expect(versions.status == 0 && versions.stdout.contains("2d172549"), "\(versions.stdout) \(versions.stderr)")
        let verified = try fixture.run(["audit", "verify"], unlock: false)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
    }

    /// The backup a release of the schema 11 era would have written of the fixture: a version 1 file
    /// (SECURITY.md §13.2, the database carried as is, then each bundle file). No vaultctl of today
    /// can write it: `backup` upgrades the vault it backs up, and writes version 2.
    static func versionOneBackup(of directory: String, to path: String) throws {
        let database = try Database(path: directory + "/" + Vault.databaseName, create: false, readOnly: true)
        let vaultID = try #require(try database.queryOne("SELECT value FROM vault_meta WHERE key = 'vault_id'")?.blob("value"))
        let bundleIDs = try database.query("SELECT bundle_id FROM bundles ORDER BY bundle_id").map { try $0.blob("bundle_id") }
        let bundles = try bundleIDs.map { id in
            BackupFileEditor.Record(kind: 2, id: id, data: [UInt8](try Data(contentsOf: URL(fileURLWithPath:
                directory + "/assets/" + id.map { String(format: "%02x", $0) }.joined() + ".vbundle"))))
        }
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + Vault.databaseName)))
        let backup = BackupFileEditor(version: 1, vaultID: vaultID, createdAt: 1_764_000_000,
                                      records: [.init(kind: 1, id: [UInt8](repeating: 0, count: 16), data: file)] + bundles)
        try backup.write(to: path)
    }

    @Test("a version 1 backup of the schema 11 vault verifies and restores: the restored copy is upgraded through the migrations (vault.upgrade, then vault.restore-backup in its log), opens, and its audit log verifies")
    func schema11BackupRestores() throws {
        let copy = try PackageFiles.copyOfSchema11Vault()
        defer { try? FileManager.default.removeItem(atPath: copy.root) }
        let backup = copy.root + "/schema-11.vaultbackup"
        try Self.versionOneBackup(of: copy.directory, to: backup)
        let passphraseFile = copy.root + "/passphrase"
        try (copy.passphrase + "\n").write(toFile: passphraseFile, atomically: true, encoding: .utf8)

        let verified = try CLI.run(["backup", "verify", backup, "--json"])
        #expect(verified.status == 0 && verified.stdout.contains("\"version\" : 1"), "\(verified.stdout) \(verified.stderr)")
        let verifiedWithKeys = try CLI.run(["backup", "verify", backup, "--passphrase-file", passphraseFile, "--json"])
        #expect(verifiedWithKeys.status == 0 && verifiedWithKeys.stdout.contains("\"bundles_opened\" : 1"),
                "\(verifiedWithKeys.stdout) \(verifiedWithKeys.stderr)")

        let target = copy.root + "/restored"
        let restored = try CLI.run(["restore-backup", backup, "--into", target])
        #expect(restored.status == 0, "\(restored.stderr)")
        let status = try CLI.run(["status", "--json", "--vault", target])
        let report = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(status.status == 0 && report?["schema_version"] as? Int == 13, "\(status.stdout) \(status.stderr)")
        let verifiedLog = try CLI.run(["audit", "verify", "--vault", target])
        #expect(verifiedLog.status == 0, "\(verifiedLog.stdout) \(verifiedLog.stderr)")
        let got = try CLI.run(["get", "7a3daae0", "--vault", target, "--passphrase-file", passphraseFile])
        #expect(got.status == 0 && got.stdout.utf8.count == 22, "\(got.stderr)")
        let log = try CLI.run(["audit", "log", "--json", "--vault", target, "--passphrase-file", passphraseFile])
        let actions = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]]).compactMap { $0["action"] as? String }
        let upgrade = try #require(actions.lastIndex(of: "vault.upgrade"), "\(actions)")
        let restore = try #require(actions.lastIndex(of: "vault.restore-backup"), "\(actions)")
        #expect(upgrade < restore, "the copy is upgraded before the restore is recorded in it: \(actions)")
        // The backup file was read, not changed: it still holds the schema 11 database.
        let again = try CLI.run(["restore-backup", backup, "--into", copy.root + "/restored-again"])
        #expect(again.status == 0, "\(again.stderr)")
    }
}
