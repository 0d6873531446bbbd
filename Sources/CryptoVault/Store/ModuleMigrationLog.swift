/// A module migration a vault has applied: one row of `module_migrations` (SECURITY.md §4.1.1).
struct AppliedMigration: Equatable, Sendable {
    let module: String
    let name: String
}

/// The owner of `module_migrations`, the record of which named module migrations a vault applied.
/// Core migration 13 makes the table; every later schema change is a row here.
enum ModuleMigrationLog {
    /// The applied migrations in the order they were applied. Empty before schema 13, which has no
    /// table to hold them.
    static func applied(in database: Database, version: Int64) throws -> [AppliedMigration] {
        guard version >= Schema.moduleMigrationsVersion else { return [] }
        guard try database.queryOne("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'module_migrations'") != nil else {
            throw CryptoVaultError(.corruptVault, """
                the vault database is damaged: it is at schema version \(version) but has no module_migrations table; \
                its tables were edited, and it is not migrated
                """)
        }
        return try database.query("SELECT module, name FROM module_migrations ORDER BY id").map { row in
            AppliedMigration(module: try row.text("module"), name: try row.text("name"))
        }
    }

    /// Records `name` of `module` as applied, in the transaction that ran its SQL.
    static func record(_ migration: AppliedMigration, at time: Int64, in database: Database) throws {
        try database.query("INSERT INTO module_migrations (module, name, applied_at) VALUES (?, ?, ?)",
                           [.text(migration.module), .text(migration.name), .integer(time)])
    }
}

/// The module of each migration a database's `module_migrations` records, in the order applied,
/// read without opening it as a vault (`WritingStoreHealth` checks a writing store before any open).
public enum AppliedModuleMigrations {
    package static func modules(in database: Database) throws -> [String] {
        try database.query("SELECT module FROM module_migrations ORDER BY id").map { try $0.text("module") }
    }
}
