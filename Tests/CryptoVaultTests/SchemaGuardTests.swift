@testable import CryptoVault
import Foundation
import Testing

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
        try fixture.unlocked.storeLeakFingerprints([1, 2, UInt64.max])
        try fixture.tamper("PRAGMA user_version = 6")
        let error = #expect(throws: CryptoVaultError.self) { try fixture.reopen() }
        #expect(error?.code == .corruptVault && error?.message.contains("unexpected: audit_cosignatures") == true,
                "\(String(describing: error))")
        try fixture.tamper("PRAGMA user_version = \(Schema.currentVersion)")
        #expect(try fixture.reopen().unlock(with: .passphrase(fixture.passphrase)).leakFingerprints().count == 3)
    }

    /// A vault as schema 10 left it: migration 12's column taken out again, the version set back.
    static let backToVersion10 = "ALTER TABLE compartments DROP COLUMN binding; PRAGMA user_version = 10"

    @Test("a version lowered past a migration that added a column (12 to 11) is refused as damaged, naming the column")
    func loweredPastAnAddedColumn() throws {
        let fixture = try TestVault()
        try fixture.tamper("PRAGMA user_version = 11")
        let error = #expect(throws: CryptoVaultError.self) { try fixture.reopen() }
        #expect(error?.code == .corruptVault && error?.message.contains("unexpected: compartments.binding") == true,
                "\(String(describing: error))")
    }

    @Test("version 10 and 11 have the same tables, so migration 11 re-run on a lowered vault deletes no fingerprint")
    func migrationElevenKeepsFingerprints() throws {
        let fixture = try TestVault()
        try fixture.unlocked.storeLeakFingerprints([1, 2, UInt64.max])
        try fixture.tamper(Self.backToVersion10)
        let reopened = try fixture.reopen()
        #expect(try reopened.read { try Schema.version(of: $0).userVersion } == Schema.currentVersion)
        #expect(try reopened.unlock(with: .passphrase(fixture.passphrase)).leakFingerprints().count == 3)
        #expect(!Schema.migrations.contains { $0.contains("DELETE FROM leak_fingerprints") })
    }

    @Test("a read-only open of an older vault is refused with olderSchema and changes nothing")
    func readOnlyOpenDoesNotMigrate() throws {
        let fixture = try TestVault()
        try fixture.tamper(Self.backToVersion10)
        let error = #expect(throws: CryptoVaultError.self) { try Vault.open(at: fixture.directory, upgrade: false) }
        #expect(error?.code == .olderSchema && error?.message.contains("run a write command") == true)
        #expect(try Schema.version(of: Database(path: fixture.vault.databasePath, create: false)).userVersion == 10)
        _ = try Vault.open(at: fixture.directory, upgrade: true)
        #expect(try Schema.version(of: Database(path: fixture.vault.databasePath, create: false)).userVersion == Schema.currentVersion)
    }

    @Test("an upgrade is recorded in the journal in the migration's transaction; a fresh vault records none")
    func upgradeIsJournaled() throws {
        let fixture = try TestVault()
        try fixture.tamper(Self.backToVersion10)
        let journal = RecordingJournal()
        _ = try Vault.open(at: fixture.directory, journal: journal)
        #expect(journal.actions == ["vault.upgrade"])
        _ = try Vault.open(at: fixture.directory, journal: journal)
        #expect(journal.actions == ["vault.upgrade"], "a current vault is not upgraded again")
    }
}
