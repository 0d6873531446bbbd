@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// Per-module named migrations after the frozen core (SECURITY.md §4.1.1): each module's list is
/// applied in order, each step with its `module_migrations` row, and a vault that applied a step this
/// binary does not know is refused as a newer schema.
@Suite("Module migrations: named per module, tracked per vault, guarded like the core schema")
struct ModuleMigrationTests {
    static let first = NamedMigration("notes", "CREATE TABLE notes_items (id INTEGER PRIMARY KEY, body BLOB NOT NULL) STRICT;")
    static let second = NamedMigration("notes-title", "ALTER TABLE notes_items ADD COLUMN title BLOB;")
    static func notes(_ migrations: NamedMigration...) -> ModuleSchema { ModuleSchema(module: "notes", migrations: migrations) }

    /// A vault made with `modules`, removed afterwards.
    final class ModuleVault {
        let root = NSTemporaryDirectory() + "vault-modules-\(UUID().uuidString)"
        var directory: String { root + "/vault" }
        var databasePath: String { directory + "/" + Vault.databaseName }

        init(_ modules: [ModuleSchema]) throws {
            _ = try Vault.create(at: directory, passphrase: try TestVault.secret("module passphrase"), kdf: TestVault.fastKDF, journal: RecordingJournal(), modules: modules)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        func applied() throws -> [String] {
            try Database(path: databasePath, create: false).query("SELECT module, name FROM module_migrations ORDER BY id").map {
                "\(try $0.text("module"))/\(try $0.text("name"))"
            }
        }

        func tables() throws -> Set<String> { try Schema.tables(of: Database(path: databasePath, create: false)) }

        func tamper(_ sql: String) throws { try Database(path: databasePath, create: false).execute(sql) }
    }

    @Test("a new vault is at core version 13 and has applied every module migration, each recorded as (module, name)")
    func freshVaultAppliesEveryModule() throws {
        let vault = try ModuleVault([Self.notes(Self.first, Self.second)])
        #expect(try Schema.version(of: Database(path: vault.databasePath, create: false)).userVersion == 13)
        #expect(try vault.applied() == ModuleSchema.cryptoVault.migrations.map { "cryptovault/\($0.name)" } + ["notes/notes", "notes/notes-title"])
        #expect(try vault.tables().isSuperset(of: ["notes_items", "notes_items.title", "module_migrations"]))
    }

    @Test("a newer binary's migration is applied on open, recorded with its row, and the upgrade is journaled once")
    func laterMigrationIsApplied() throws {
        let vault = try ModuleVault([Self.notes(Self.first)])
        let journal = RecordingJournal()
        _ = try Vault.open(at: vault.directory, journal: journal, modules: [Self.notes(Self.first, Self.second)])
        #expect(try vault.applied().suffix(2) == ["notes/notes", "notes/notes-title"])
        #expect(try vault.tables().contains("notes_items.title"))
        #expect(journal.actions == ["vault.upgrade"])
        _ = try Vault.open(at: vault.directory, journal: journal, modules: [Self.notes(Self.first, Self.second)])
        #expect(journal.actions == ["vault.upgrade"], "an up-to-date vault is not upgraded again")
    }

    @Test("a migration that fails leaves no trace: neither its row nor an earlier step of the same upgrade is kept")
    func failedMigrationRollsBack() throws {
        let vault = try ModuleVault([Self.notes(Self.first)])
        let broken = NamedMigration("broken", "CREATE TABLE notes_items (x);")
        let error = #expect(throws: CryptoVaultError.self) {
            try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: [Self.notes(Self.first, Self.second, broken)])
        }
        #expect(error?.code == .database, "\(String(describing: error))")
        #expect(try vault.applied().last == "notes/notes")
        #expect(try !vault.tables().contains("notes_items.title"), "notes-title ran in the same transaction and was rolled back")
    }

    @Test("a vault with a migration this binary does not know is refused as a newer schema, naming it")
    func unknownMigrationIsNewerSchema() throws {
        let vault = try ModuleVault([Self.notes(Self.first, Self.second)])
        let error = #expect(throws: CryptoVaultError.self) { try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: [Self.notes(Self.first)]) }
        #expect(error?.code == .newerSchema && error?.message.contains("'notes-title' of module 'notes'") == true, "\(String(describing: error))")
        let readOnly = #expect(throws: CryptoVaultError.self) { try Vault.openReadOnly(at: vault.directory, modules: [Self.notes(Self.first)]) }
        #expect(readOnly?.code == .newerSchema)
    }

    @Test("a vault with a whole module this binary does not have is refused as a newer schema")
    func unknownModuleIsNewerSchema() throws {
        let vault = try ModuleVault([Self.notes(Self.first)])
        let error = #expect(throws: CryptoVaultError.self) { try Vault.open(at: vault.directory, journal: RecordingJournal()) }
        #expect(error?.code == .newerSchema && error?.message.contains("of module 'notes'") == true, "\(String(describing: error))")
    }

    @Test("a read-only open never applies a pending module migration: refused as olderSchema, the vault unchanged")
    func readOnlyOpenDoesNotMigrateModules() throws {
        let vault = try ModuleVault([Self.notes(Self.first)])
        let newer = [Self.notes(Self.first, Self.second)]
        let before = try vault.applied()
        for open in [{ try Vault.openReadOnly(at: vault.directory, modules: newer) }, { try Vault.open(at: vault.directory, journal: RecordingJournal(), upgrade: false, modules: newer) }] {
            let error = #expect(throws: CryptoVaultError.self) { _ = try open() }
            #expect(error?.code == .olderSchema && error?.message.contains("lacks the migration 'notes-title' of module 'notes'") == true
                    && error?.message.contains("run a write command") == true, "\(String(describing: error))")
        }
        #expect(try vault.applied() == before)
        #expect(try !vault.tables().contains("notes_items.title"))
    }

    @Test("a dropped module table is refused as damaged before any migration runs")
    func droppedModuleTableIsDamage() throws {
        let vault = try ModuleVault([Self.notes(Self.first)])
        try vault.tamper("DROP TABLE notes_items")
        let error = #expect(throws: CryptoVaultError.self) { try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: [Self.notes(Self.first, Self.second)]) }
        #expect(error?.code == .corruptVault && error?.message.contains("missing: notes_items") == true, "\(String(describing: error))")
    }

    @Test("a deleted tracking row is refused as damaged: its migration is not run again over its own table")
    func deletedTrackingRowIsDamage() throws {
        let vault = try ModuleVault([Self.notes(Self.first)])
        try vault.tamper("DROP TRIGGER module_migrations_no_delete; DELETE FROM module_migrations WHERE module = 'notes'")
        let error = #expect(throws: CryptoVaultError.self) { try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: [Self.notes(Self.first)]) }
        #expect(error?.code == .corruptVault && error?.message.contains("unexpected: notes_items") == true, "\(String(describing: error))")
    }

    @Test("applied migrations out of their module's order are refused as damaged")
    func outOfOrderIsDamage() throws {
        let vault = try ModuleVault([Self.notes(Self.first, Self.second)])
        try vault.tamper("DROP TRIGGER module_migrations_no_delete; DELETE FROM module_migrations WHERE name = 'notes'")
        let error = #expect(throws: CryptoVaultError.self) { try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: [Self.notes(Self.first, Self.second)]) }
        #expect(error?.code == .corruptVault && error?.message.contains("out of their order") == true, "\(String(describing: error))")
    }

    @Test("the tracking table is append-only: an applied migration cannot be deleted or renamed by a bug")
    func trackingIsAppendOnly() throws {
        let vault = try ModuleVault([Self.notes(Self.first)])
        #expect(errorMessage { try vault.tamper("DELETE FROM module_migrations") }?.contains("append-only") == true)
        #expect(errorMessage { try vault.tamper("UPDATE module_migrations SET name = 'other'") }?.contains("append-only") == true)
    }

    @Test("a module listed twice, or a migration name repeated in a module, is refused before the vault is touched")
    func duplicateNamesAreRefused() throws {
        let vault = try ModuleVault([])
        #expect(errorCode { try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: [Self.notes(Self.first), Self.notes(Self.second)]) } == .invalidInput)
        #expect(errorCode { try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: [Self.notes(Self.first, Self.first)]) } == .invalidInput)
        #expect(errorCode { try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: [ModuleSchema(module: "cryptovault", migrations: [])]) } == .invalidInput)
    }
}
