import AuditChain
import CryptoVault
import Foundation
import Testing
import TestSupport

/// `Vault.read` hands its body the vault's own connection; a statement there that would change the
/// vault is refused, so the public read is not an unaudited write (issue 12's review).
@Suite struct VaultReadOnlyTests {
    /// Each way a body could try to write: change rows, change the schema, lift the read-only state,
    /// end the read transaction to write after it, or reach another file.
    static let writes = [
        "DELETE FROM bundles",
        "INSERT INTO vault_meta (key, value) VALUES ('planted', 1)",
        "UPDATE vault_meta SET value = 0 WHERE key = 'created_at'",
        "DELETE FROM audit_entries",
        "CREATE TABLE planted (value BLOB)",
        "DROP TABLE bundles",
        "CREATE INDEX planted_index ON vault_meta (value)",
        "PRAGMA query_only = 0",
        "PRAGMA journal_mode = DELETE",
        "COMMIT",
        "ATTACH DATABASE ':memory:' AS elsewhere",
    ]

    /// A vault with one bundle, its log checkpointed.
    static func vaultWithBundle() throws -> (AuditedVault, StoredBundle) {
        let fixture = try AuditedVault()
        let compartment = try fixture.unlocked.createCompartment(named: "memos", register: .general)
        let bundle = try fixture.command { try fixture.put("memo.txt", contents: "kept", in: compartment, by: fixture.unlocked) }
        return (fixture, bundle)
    }

    /// What must not change: every row of the tables a write above aims at, and the schema.
    static func contents(_ vault: Vault) throws -> [String] {
        try vault.read { database in
            try ["SELECT hex(bundle_id) AS row FROM bundles", "SELECT key || '=' || quote(value) AS row FROM vault_meta",
                 "SELECT seq || ':' || hex(entry) AS row FROM audit_entries",
                 "SELECT name || ':' || coalesce(sql, '') AS row FROM sqlite_schema"]
                .flatMap { sql in try database.query(sql).map { try $0.text("row") } }
        }
    }

    @Test("a write inside Vault.read is refused as a write inside a read, by execute and by query, and changes nothing", arguments: writes)
    func writeIsRefused(sql: String) throws {
        let (fixture, bundle) = try Self.vaultWithBundle()
        let before = try Self.contents(fixture.vault)
        let entries = try fixture.reader.size()
        for attempt in [{ (database: Database) in try database.execute(sql) }, { (database: Database) in _ = try database.query(sql) }] {
            let error = #expect(throws: CryptoVaultError.self) { try fixture.vault.read { try attempt($0) } }
            #expect(error?.code == .writeInsideRead, "\(sql): \(error?.message ?? "")")
            #expect(error?.message.contains("unlocked.transaction") == true)
        }
        #expect(try Self.contents(fixture.vault) == before)
        #expect(try fixture.unlocked.storedBundle(bundle.bundleID).bundleID == bundle.bundleID)
        #expect(try fixture.reader.size() == entries)
        #expect(try fixture.reader.verify().entryCount == entries)
    }

    @Test("a write statement kept from a transaction (not prepared again) is still refused when run inside Vault.read")
    func keptStatementIsRefused() throws {
        let (fixture, bundle) = try Self.vaultWithBundle()
        let delete = "DELETE FROM bundles WHERE bundle_id = ?"
        // Runs (deleting nothing) in an audited transaction, so the connection keeps it prepared.
        try fixture.unlocked.transaction { tx in try tx.database.query(delete, [.blob(Array(repeating: 0, count: 16))]) }
        let before = try Self.contents(fixture.vault)
        let error = #expect(throws: CryptoVaultError.self) {
            try fixture.vault.read { try $0.query(delete, [.blob(bundle.bundleID.bytes)]) }
        }
        #expect(error?.code == .writeInsideRead)
        #expect(try Self.contents(fixture.vault) == before)
        #expect(try fixture.unlocked.storedBundle(bundle.bundleID).bundleID == bundle.bundleID)
    }

    @Test("after a refused read, and inside a transaction after a nested read, the vault writes again through its transaction")
    func writesWorkAfterARead() throws {
        let (fixture, _) = try Self.vaultWithBundle()
        _ = try? fixture.vault.read { try $0.execute("DELETE FROM bundles") }
        let compartment = try fixture.unlocked.compartment(named: "memos")
        let second = try fixture.command {
            try fixture.unlocked.transaction { tx in
                _ = try fixture.vault.read { try $0.query("SELECT count(*) AS n FROM bundles") }
                try tx.database.query("INSERT INTO vault_meta (key, value) VALUES ('after-read', 1)")
                try tx.record(.bundleGet)
            }
            return try fixture.put("second.txt", contents: "also kept", in: compartment, by: fixture.unlocked)
        }
        #expect(try fixture.unlocked.storedBundles().map(\.bundleID).contains(second.bundleID))
        #expect(try fixture.vault.read { try $0.queryOne("SELECT value FROM vault_meta WHERE key = 'after-read'") } != nil)
        #expect(try fixture.reader.verify().entryCount > 0)
    }
}
