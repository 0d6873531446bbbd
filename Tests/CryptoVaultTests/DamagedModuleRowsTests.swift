@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// A damaged row (a CHECK or NOT NULL constraint broken, as a flipped bit leaves it) in a table of a
/// module whose layer mends its own rows opens the vault, the damage handed up by table; anywhere
/// else it refuses the vault as a whole, with SQLite's words (attack review s8, F18: one counter's
/// sign bit refused every command, `repair` and `audit verify` included).
@Suite("Damaged rows of a mending module's tables open the vault; any other damage refuses it")
struct DamagedModuleRowsTests {
    typealias ModuleVault = ModuleMigrationTests.ModuleVault
    static let tally = NamedMigration("tally", """
        CREATE TABLE tally_counts (id INTEGER PRIMARY KEY, counter INTEGER NOT NULL CHECK (counter >= 1), label TEXT NOT NULL);
        INSERT INTO tally_counts (counter, label) VALUES (1, 'one'), (2, 'two');
        """)
    static var plain: ModuleSchema { ModuleSchema(module: "tally", migrations: [tally]) }
    static var mending: ModuleSchema { plain.mendingDamagedRows() }

    static func open(_ vault: ModuleVault, _ module: ModuleSchema) throws -> Vault {
        try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: [module])
    }

    @Test("a CHECK broken in a mending module's table opens the vault and names the table; the same module not mending refuses it")
    func aBrokenCheckInAMendingModulesTableOpensTheVault() throws {
        let vault = try ModuleVault([Self.mending])
        try vault.tamper("PRAGMA ignore_check_constraints = ON; UPDATE tally_counts SET counter = -5 WHERE id = 1")
        let opened = try Self.open(vault, Self.mending)
        #expect(opened.damagedModuleRows == ["tally_counts": ["CHECK constraint failed in tally_counts"]])
        let refused = #expect(throws: CryptoVaultError.self) { try Self.open(vault, Self.plain) }
        #expect(refused?.code == .corruptVault && refused?.message == "the vault database is damaged: CHECK constraint failed in tally_counts",
                "\(String(describing: refused))")
    }

    @Test("a NULL in a NOT NULL column of a mending module's table is handed up by table too")
    func aNullInAMendingModulesTableOpensTheVault() throws {
        let vault = try ModuleVault([Self.mending])
        try vault.tamper("PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'label TEXT NOT NULL', 'label TEXT') WHERE name = 'tally_counts'")
        try vault.tamper("UPDATE tally_counts SET label = NULL WHERE id = 2")
        try vault.tamper("PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'label TEXT)', 'label TEXT NOT NULL)') WHERE name = 'tally_counts'")
        #expect(try Self.open(vault, Self.mending).damagedModuleRows == ["tally_counts": ["NULL value in tally_counts.label"]])
    }

    @Test("a CHECK broken in a core table refuses the vault with SQLite's words, whatever module mends its own rows")
    func aBrokenCheckInACoreTableStillRefusesTheVault() throws {
        let vault = try ModuleVault([Self.mending])
        try vault.tamper("PRAGMA ignore_check_constraints = ON; UPDATE keyslots SET kind = 'x'")
        let refused = #expect(throws: CryptoVaultError.self) { try Self.open(vault, Self.mending) }
        #expect(refused?.code == .corruptVault && refused?.message == "the vault database is damaged: CHECK constraint failed in keyslots",
                "\(String(describing: refused))")
        // Both at once: the core table's damage still refuses it.
        try vault.tamper("PRAGMA ignore_check_constraints = ON; UPDATE tally_counts SET counter = 0")
        let both = #expect(throws: CryptoVaultError.self) { try Self.open(vault, Self.mending) }
        #expect(both?.code == .corruptVault && both?.message.contains("CHECK constraint failed in keyslots") == true, "\(String(describing: both))")
    }

    @Test("a whole vault opens with nothing handed up")
    func aWholeVaultHasNoDamagedRows() throws {
        let vault = try ModuleVault([Self.mending])
        #expect(try Self.open(vault, Self.mending).damagedModuleRows.isEmpty)
    }

    @Test("only row findings name a table: page and cell damage name none", arguments: [
        ("CHECK constraint failed in sync_records", "sync_records"), ("NULL value in writing_blocks.position", "writing_blocks"),
        ("non-INTEGER value in tally_counts.counter", "tally_counts"), ("*** in database main ***\nPage 12: btreeInitPage() returns error code 11", nil),
        ("On tree page 3 cell 0: invalid page number 99", nil), ("Page 7 is never used", nil), ("CHECK constraint failed in a b", nil),
        ("row 3 missing from index sync_records_by_project", nil),
    ] as [(String, String?)])
    func rowFindingsNameTheirTable(_ finding: String, _ table: String?) {
        #expect(VaultIntegrity.damagedRowTable(finding) == table, "\(finding)")
    }
}
