@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// A `user_version` that cannot be true is a damaged vault, never a reason to re-run migrations on
/// data they were not written for (issue 13); a read-only open never migrates.
@Suite("Schema guards: hostile versions are refused, read-only opens do not migrate")
struct SchemaGuardTests {
    @Test("a negative user_version is refused as a damaged vault, not a trap")
    func negativeVersion() throws {
        let fixture = try TestVault()
        try fixture.tamper("PRAGMA user_version = -5")
        let error = #expect(throws: CryptoVaultError.self) { try fixture.reopen() }
        #expect(error?.code == .corruptVault)
        #expect(error?.message.contains("schema version -5 is not one vaultctl ever wrote") == true, "\(String(describing: error))")
    }

    @Test("user_version 0 on a populated vault is refused: migration 1 is not re-run")
    func zeroVersionOnPopulatedVault() throws {
        let fixture = try TestVault()
        try fixture.tamper("PRAGMA user_version = 0")
        let error = #expect(throws: CryptoVaultError.self) { try fixture.reopen() }
        #expect(error?.code == .corruptVault && error?.message.contains("not those of schema version 0") == true,
                "\(String(describing: error))")
        #expect(try Schema.version(of: Database(path: fixture.vault.databasePath, create: false)).userVersion == 0, "left as found")
    }

    @Test("a lowered user_version is refused as damaged and the leak fingerprints survive")
    func loweredVersionKeepsFingerprints() throws {
        let fixture = try TestVault()
        try fixture.unlocked.transaction { try $0.storeLeakFingerprints([1, 2, UInt64.max]) }
        try fixture.tamper("PRAGMA user_version = 6")
        let error = #expect(throws: CryptoVaultError.self) { try fixture.reopen() }
        #expect(error?.code == .corruptVault && error?.message.contains("unexpected: audit_cosignatures") == true,
                "\(String(describing: error))")
        try fixture.tamper("PRAGMA user_version = \(Schema.currentVersion)")
        #expect(try fixture.reopen().unlock(with: .passphrase(fixture.passphrase)).leakFingerprints().count == 3)
    }

    /// A vault as schema 10 left it: the tables of migration 13 and of every module migration dropped,
    /// migration 12's column taken out again, the version set back.
    static var backToVersion10: String {
        get throws { try droppingTablesAfterVersion12() + "ALTER TABLE compartments DROP COLUMN binding; PRAGMA user_version = 10" }
    }

    /// `DROP TABLE` for each table a vault made today has and a vault of schema 12 had not.
    static func droppingTablesAfterVersion12() throws -> String {
        let schema = try VaultSchema(adding: [])
        let added = try schema.currentTables().subtracting(try schema.tables(atVersion: 12, applied: [])).filter { !$0.contains(".") }
        return added.sorted().map { "DROP TABLE \($0); " }.joined()
    }

    @Test("a version lowered past a migration that added a column (12 to 11) is refused as damaged, naming the column")
    func loweredPastAnAddedColumn() throws {
        let fixture = try TestVault()
        try fixture.tamper(try Self.droppingTablesAfterVersion12() + "PRAGMA user_version = 11")
        let error = #expect(throws: CryptoVaultError.self) { try fixture.reopen() }
        #expect(error?.code == .corruptVault && error?.message.contains("unexpected: compartments.binding") == true,
                "\(String(describing: error))")
    }

    @Test("a version lowered from 13 to 12 is refused as damaged, naming migration 13's module_migrations")
    func loweredBelowModuleMigrations() throws {
        let fixture = try TestVault()
        try fixture.tamper("PRAGMA user_version = 12")
        let error = #expect(throws: CryptoVaultError.self) { try fixture.reopen() }
        #expect(error?.code == .corruptVault && error?.message.contains("unexpected: module_migrations") == true,
                "\(String(describing: error))")
    }

    @Test("version 10 and 11 have the same tables, so migration 11 re-run on a lowered vault deletes no fingerprint")
    func migrationElevenKeepsFingerprints() throws {
        let fixture = try TestVault()
        try fixture.unlocked.transaction { try $0.storeLeakFingerprints([1, 2, UInt64.max]) }
        try fixture.tamper(try Self.backToVersion10)
        let reopened = try fixture.reopen()
        #expect(try reopened.read { try Schema.version(of: $0).userVersion } == Schema.currentVersion)
        #expect(try reopened.unlock(with: .passphrase(fixture.passphrase)).leakFingerprints().count == 3)
        #expect(!Schema.coreMigrations.contains { $0.contains("DELETE FROM leak_fingerprints") })
    }

    @Test("a read-only open of an older vault is refused with olderSchema and changes nothing")
    func readOnlyOpenDoesNotMigrate() throws {
        let fixture = try TestVault()
        try fixture.tamper(try Self.backToVersion10)
        let error = #expect(throws: CryptoVaultError.self) { try Vault.open(at: fixture.directory, journal: RecordingJournal(), upgrade: false) }
        #expect(error?.code == .olderSchema && error?.message.contains("run a write command") == true)
        #expect(try Schema.version(of: Database(path: fixture.vault.databasePath, create: false)).userVersion == 10)
        _ = try Vault.open(at: fixture.directory, journal: RecordingJournal(), upgrade: true)
        #expect(try Schema.version(of: Database(path: fixture.vault.databasePath, create: false)).userVersion == Schema.currentVersion)
    }

    @Test("an upgrade is recorded in the journal in the migration's transaction; a fresh vault records none")
    func upgradeIsJournaled() throws {
        let fixture = try TestVault()
        try fixture.tamper(try Self.backToVersion10)
        let journal = RecordingJournal()
        _ = try Vault.open(at: fixture.directory, journal: journal)
        #expect(journal.actions == ["vault.upgrade"])
        _ = try Vault.open(at: fixture.directory, journal: journal)
        #expect(journal.actions == ["vault.upgrade"], "a current vault is not upgraded again")
    }
}
