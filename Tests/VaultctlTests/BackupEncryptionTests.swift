import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Version 2 backups (SECURITY.md §13.2, §13.5): the database is sealed to the vault's backup key;
/// only the public record (audit log's public part, keyslots, backup key) and the bundles as stored
/// are in the clear, so the file can still be checked without a key.
@Suite("Encrypted backups (container version 2)")
struct BackupEncryptionTests {
    static let secretName = "Harbourview Psychiatry 7Q"
    static let secretText = "Patient Zed-4471 reports the dreams returned on Tuesday."

    /// A vault with a privileged-looking compartment and a stored note, and its backup.
    static func backedUpVault() throws -> (CLIVault, String) {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["compartment", "create", secretName, "--register", "general"]))
        try fixture.write(secretText, to: fixture.root + "/note.txt")
        try expectSuccess(fixture.run(["put", "--compartment", secretName, fixture.root + "/note.txt"]))
        let backup = fixture.root + "/vault.backup"
        try expectSuccess(fixture.run(["backup", "-o", backup], unlock: false))
        return (fixture, backup)
    }

    @Test("a backup carries no audit signing seed, compartment name, plaintext or sealed database row in the clear: version 2, records public/sealed/bundle, and the public record has no private_key column")
    func noSecretInTheFile() throws {
        let (fixture, backup) = try Self.backedUpVault()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: backup)))
        let database = try Database(path: fixture.directory + "/vault.db", create: false, readOnly: true)
        let seed = try #require(try database.queryOne("SELECT private_key FROM audit_signing_keys WHERE private_key IS NOT NULL")).blob("private_key")
        let sealedName = try #require(try database.queryOne("SELECT sealed_name FROM compartments")).blob("sealed_name")
        let deviceSalt = try database.query("SELECT salt FROM compartment_keys").map { try $0.blob("salt") }
        #expect(seed.count == 32)
        #expect(!bytes.contains(bytes: seed), "the current epoch's signing seed is in the file")
        #expect(!bytes.contains(bytes: sealedName), "a compartments row is in the file: the database travels as is")
        for salt in deviceSalt { #expect(!bytes.contains(bytes: salt), "a compartment key salt is in the file") }
        #expect(!bytes.contains(bytes: Array(Self.secretName.utf8)), "the compartment's name is in the file")
        #expect(!bytes.contains(bytes: Array(Self.secretText.utf8)), "the note's text is in the file")

        let file = try BackupFileEditor(path: backup)
        #expect(file.version == 2)
        #expect(file.records.map(\.kind) == [3, 4, 2])
        let record = fixture.root + "/public.db"
        try Data(file.records[0].data).write(to: URL(fileURLWithPath: record))
        let publicRecord = try Database(path: record, create: false, readOnly: true)
        let columns = try publicRecord.query("PRAGMA table_info(audit_signing_keys)").map { try $0.text("name") }
        #expect(!columns.contains("private_key") && columns.contains("public_key"), "\(columns)")
        let tables = try publicRecord.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { try $0.text("name") }
        #expect(tables == ["audit_checkpoints", "audit_cosignatures", "audit_entries", "audit_signing_keys", "backup_meta", "keyslots"])
    }

    @Test("without the passphrase, backup verify checks the audit log in the public record: an entry altered there is refused (exit 1, FAILED) even with every digest and the trailer recomputed")
    func keylessVerifyChecksThePublicAuditLog() throws {
        let (fixture, backup) = try Self.backedUpVault()
        let intact = try CLI.run(["backup", "verify", backup, "--json"])
        #expect(intact.status == 0 && intact.stdout.contains("\"version\" : 2"), "\(intact.stdout) \(intact.stderr)")
        var file = try BackupFileEditor(path: backup)
        try file.editDatabase(record: 0, scratch: fixture.root) { database in
            var entry = try #require(try database.queryOne("SELECT entry FROM audit_entries WHERE seq = 1")).blob("entry")
            entry[entry.count - 1] ^= 0x01
            try database.query("UPDATE audit_entries SET entry = ? WHERE seq = 1", [.blob(entry)])
        }
        let edited = fixture.root + "/edited.backup"
        try file.write(to: edited)
        let verified = try CLI.run(["backup", "verify", edited])
        #expect(verified.status == 1 && verified.stderr.contains("audit log FAILED verification"), "\(verified.stderr)")
    }

    @Test("a public record that disagrees with the sealed database (a keyslot's time changed) passes without a key but is refused with the passphrase by verify and restore-backup (65), naming the table, and restore leaves no folder")
    func publicRecordMustAgreeWithTheDatabase() throws {
        let (fixture, backup) = try Self.backedUpVault()
        var file = try BackupFileEditor(path: backup)
        try file.editDatabase(record: 0, scratch: fixture.root) { database in
            try database.query("UPDATE keyslots SET updated_at = updated_at + 1")
        }
        let edited = fixture.root + "/edited.backup"
        try file.write(to: edited)
        try expectSuccess(CLI.run(["backup", "verify", edited]))
        let verified = try CLI.run(["backup", "verify", edited, "--passphrase-file", fixture.passphraseFile])
        #expect(verified.status == 65 && verified.stderr.contains("keyslots differs from its database's"), "\(verified.stderr)")
        let target = fixture.root + "/restored"
        let restored = try CLI.run(["restore-backup", edited, "--into", target, "--passphrase-file", fixture.passphraseFile])
        #expect(restored.status == 65 && restored.stderr.contains("keyslots differs"), "\(restored.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("a public record with a table that is not in its schema (a view) is refused before anything reads it (65)")
    func publicRecordSchemaIsExact() throws {
        let (fixture, backup) = try Self.backedUpVault()
        var file = try BackupFileEditor(path: backup)
        try file.editDatabase(record: 0, scratch: fixture.root) { try $0.execute("CREATE VIEW audit_view AS SELECT * FROM audit_entries") }
        let edited = fixture.root + "/edited.backup"
        try file.write(to: edited)
        let verified = try CLI.run(["backup", "verify", edited])
        #expect(verified.status == 65 && verified.stderr.contains("view audit_view, which is not in its schema"), "\(verified.stderr)")
    }

    @Test("restore-backup of a version 2 file needs a credential: none and no terminal stops it (64), a wrong passphrase (2), and neither leaves DIR or a staging folder; the right one restores a vault that unlocks")
    func restoreNeedsACredential() throws {
        let (fixture, backup) = try Self.backedUpVault()
        let target = fixture.root + "/restored"
        let none = try CLI.run(["restore-backup", backup, "--into", target])
        #expect(none.status == 64 && none.stderr.contains("no terminal"), "\(none.stderr)")
        try fixture.write("not the passphrase\n", to: fixture.root + "/wrong")
        let wrong = try CLI.run(["restore-backup", backup, "--into", target, "--passphrase-file", fixture.root + "/wrong"])
        #expect(wrong.status == 2, "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root).allSatisfy { !$0.hasPrefix(".restoring") })
        try expectSuccess(CLI.run(["restore-backup", backup, "--into", target, "--passphrase-file", fixture.passphraseFile]))
        let listed = try expectSuccess(CLI.run(["ls", "--vault", target, "--passphrase-file", fixture.passphraseFile]))
        #expect(listed.stdout.contains("note.txt"), "\(listed.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target).allSatisfy { !$0.hasPrefix("backup-public") && !$0.hasSuffix(".sealed") })
    }

    @Test("restore-backup --into a one-component relative name (run from its parent) restores there instead of trapping, and the vault it publishes is at rest (no write-ahead log) with vault.restore-backup recorded")
    func restoreIntoARelativeName() throws {
        let (fixture, backup) = try Self.backedUpVault()
        let script = "cd '\(fixture.root)' && '\(CLI.binary)' restore-backup '\(backup)' --into restored --passphrase-file '\(fixture.passphraseFile)'"
        let running = try CLI.start(["-c", script], executable: "/bin/sh")
        running.process.waitUntilExit()
        let result = running.result()
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/restored").sorted()
        #expect(files == ["assets", "vault.db"], "\(files)")
        let log = try expectSuccess(CLI.run(["audit", "log", "--json", "--vault", fixture.root + "/restored", "--passphrase-file", fixture.passphraseFile]))
        #expect(log.stdout.contains("vault.restore-backup"))
    }

    @Test("a version 1 backup (the database carried as is) still verifies and restores without any credential")
    func versionOneIsStillRead() throws {
        let (fixture, backup) = try Self.backedUpVault()
        let v2 = try BackupFileEditor(path: backup)
        let snapshot = fixture.root + "/snapshot.db"
        try Database(path: fixture.directory + "/vault.db", create: false).snapshot(to: snapshot)
        let database = [UInt8](try Data(contentsOf: URL(fileURLWithPath: snapshot)))
        let v1 = BackupFileEditor(version: 1, vaultID: v2.vaultID, createdAt: v2.createdAt,
                                  records: [.init(kind: 1, id: [UInt8](repeating: 0, count: 16), data: database)] + v2.records.filter { $0.kind == 2 })
        let old = fixture.root + "/old.backup"
        try v1.write(to: old)
        let verified = try expectSuccess(CLI.run(["backup", "verify", old, "--json"]))
        #expect(verified.stdout.contains("\"version\" : 1"), "\(verified.stdout)")
        let target = fixture.root + "/restored"
        try expectSuccess(CLI.run(["restore-backup", old, "--into", target]))
        try expectSuccess(CLI.run(["audit", "verify", "--vault", target]))
    }

    @Test("a vault made before encrypted backups gets its backup key at its first backup, which asks for the passphrase (64 without a terminal) and records backup.key-create once")
    func olderVaultGetsItsBackupKeyOnce() throws {
        let fixture = try CLIVault()
        do {
            let database = try Database(path: fixture.directory + "/vault.db", create: false)
            try database.query("DELETE FROM vault_meta WHERE key IN ('backup_public_key', 'backup_sealed_key')")
            try database.truncateLog()
        }
        let backup = fixture.root + "/b"
        let asked = try fixture.run(["backup", "-o", backup], unlock: false)
        #expect(asked.status == 64 && asked.stderr.contains("no terminal"), "\(asked.stderr)")
        try expectSuccess(fixture.run(["backup", "-o", backup]))
        try expectSuccess(fixture.run(["backup", "-o", backup, "--force"], unlock: false))
        let log = try expectSuccess(fixture.run(["audit", "log", "--json"]))
        #expect(log.stdout.components(separatedBy: "backup.key-create").count == 2, "\(log.stdout)")
        try expectSuccess(CLI.run(["backup", "verify", backup, "--passphrase-file", fixture.passphraseFile]))
    }

    @Test("a vault an older vaultctl made and never paired (no device identity) gets its identity at its first backup given the passphrase, recorded as device.create, and the restored vault is the same device (review 17 s12, N-s12-2 (b)); with no one to ask (no terminal, no credential) the backup is written as before, with a warning, and its restore says it holds no identity")
    func olderVaultGetsItsDeviceIdentityAtItsFirstBackup() throws {
        let fixture = try CLIVault()
        try expectSuccess(fixture.run(["project", "create", "Memo", "--register", "general"]))
        do {
            let database = try Database(path: fixture.directory + "/vault.db", create: false)
            try database.query("DELETE FROM device_identity")
            try database.truncateLog()
        }
        let backup = fixture.root + "/b"
        let unattended = try fixture.run(["backup", "-o", backup], unlock: false)
        #expect(unattended.status == 0 && unattended.stderr.contains("this vault has no device identity yet")
                && unattended.stderr.contains("Run 'vaultctl device' once"), "\(unattended.status): \(unattended.stderr)")
        let older = try CLI.run(["restore-backup", backup, "--into", fixture.root + "/older", "--passphrase-file", fixture.passphraseFile])
        #expect(older.status == 0 && older.stdout.contains("This backup holds no device identity"), "\(older.stdout) \(older.stderr)")
        try expectSuccess(fixture.run(["backup", "-o", backup, "--force"]))
        let identity = try #require(try jsonObject(try expectSuccess(fixture.run(["device", "--json"], unlock: false)).stdout) as? [String: Any])
        try expectSuccess(fixture.run(["backup", "-o", backup, "--force"], unlock: false))
        let log = try expectSuccess(fixture.run(["audit", "log", "--json", "--action", "device.create"]))
        #expect(log.stdout.components(separatedBy: "device.create").count == 3, "init's and the backup's: \(log.stdout)")

        let target = fixture.root + "/restored"
        let restored = try CLI.run(["restore-backup", backup, "--into", target, "--passphrase-file", fixture.passphraseFile])
        #expect(restored.status == 0 && !restored.stdout.contains("holds no device identity"), "\(restored.stdout) \(restored.stderr)")
        let shown = try #require(try jsonObject(try expectSuccess(CLI.run(["device", "--json", "--vault", target])).stdout) as? [String: Any])
        #expect(shown["fingerprint"] as? String == identity["fingerprint"] as? String && shown["fingerprint"] != nil, "\(shown) \(identity)")
    }

    @Test("a flip in every part of a version 2 backup and a truncation at every boundary are refused by backup verify and by restore-backup (65), each with its reason, and restore leaves no folder")
    func everyPartFlippedAndEveryBoundaryCut() throws {
        let (fixture, backup) = try Self.backedUpVault()
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: backup)))
        let file = try BackupFileEditor(path: backup)
        let damaged = fixture.root + "/damaged", target = fixture.root + "/restored"
        func expectRefused(_ bytes: [UInt8], _ what: String, reasons: [String]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            let verified = try CLI.run(["backup", "verify", damaged])
            #expect(verified.status == 65 && reasons.contains { verified.stderr.contains($0) }, "verify, \(what): \(verified.stderr)")
            let restored = try CLI.run(["restore-backup", damaged, "--into", target, "--passphrase-file", fixture.passphraseFile])
            #expect(restored.status == 65 && reasons.contains { restored.stderr.contains($0) }, "restore, \(what): \(restored.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target), "restore, \(what): left \(target)")
        }
        for (offset, what) in file.boundaries() {
            var flipped = original
            flipped[offset + (what.hasSuffix("data") ? 7 : 0)] ^= 0x04
            let reasons: [String]
            switch what {
            case "the header": reasons = ["no backup magic"]
            case "the version": reasons = ["format version"]
            case "the record count": reasons = ["records", "truncated", "trailer"]
            case let part where part.hasSuffix("kind"): reasons = ["must be", "unknown kind", "out of place"]
            case let part where part.hasSuffix("length"): reasons = ["truncated", "over the cap", "SHA-256"]
            case let part where part.hasSuffix("data") || part.hasSuffix("digest"): reasons = ["does not match its SHA-256"]
            default: reasons = ["the trailer does not match", "out of order", "must be"]
            }
            try expectRefused(flipped, "a flip in \(what)", reasons: reasons)
            try expectRefused(Array(original[0..<offset]), "cut at \(what)", reasons: ["truncated"])
        }
        try expectRefused(original + [0], "a byte after the trailer", reasons: ["follow the trailer"])
    }
}

/// The independent reader of testvectors/independent/backup_container.py on files vaultctl writes.
@Suite("Backups read by the independent implementation")
struct BackupIndependentTests {
    static let script = IndependentImplementationTests.repositoryRoot.appendingPathComponent("testvectors/independent/backup_container.py").path

    @Test("backup_container.py accepts vaultctl's backup without a key (version 2, public/sealed/bundle records) and with the passphrase opens its sealed database; a flipped byte is refused as digest")
    func independentReaderAgrees() throws {
        let (fixture, backup) = try BackupEncryptionTests.backedUpVault()
        let python = IndependentImplementationTests.python
        let keyless = try IndependentImplementationTests.run(python, [Self.script, backup])
        #expect(keyless.status == 0, "\(keyless.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(keyless.stdout.utf8)) as? [String: Any])
        #expect(summary["version"] as? Int == 2)
        #expect((summary["records"] as? [[String: Any]])?.compactMap { $0["kind"] as? Int } == [3, 4, 2])
        let opened = try IndependentImplementationTests.run(python, [Self.script, backup, "--passphrase-file", fixture.passphraseFile])
        #expect(opened.status == 0 && opened.stdout.contains("\"database_opened\": true"), "\(opened.stdout) \(opened.stderr)")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: backup)))
        bytes[200] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: backup + ".flipped"))
        let flipped = try IndependentImplementationTests.run(python, [Self.script, backup + ".flipped"])
        #expect(flipped.status == 1 && flipped.stderr.contains("refused: digest"), "\(flipped.stderr)")
    }
}
