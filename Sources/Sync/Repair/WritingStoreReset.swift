import CryptoVault
import Writing

/// Empties the writing store and makes it again, inside the caller's one audited transaction
/// (SECURITY.md §19.10): every table of the modules `writing` and `sync` is dropped (those still
/// there: a dropped one is the damage being repaired), every record those modules sealed is
/// removed, and each module's migrations run again in order, so the tables are exactly those its
/// `module_migrations` rows say (the rows themselves are kept). Foreign keys are checked at commit:
/// by then every table that referred to a dropped one is dropped too.
enum WritingStoreReset {
    static let modules = [WritingSchema.module, SyncSchema.module]

    /// Returns the tables made again and the sealed records removed. The records sealed in `kept`
    /// stay: the compartments of projects `vaultctl repair --from` keeps as they are (`KeptProjects`,
    /// whose rows it puts back).
    static func reset(in transaction: VaultTransaction, keeping kept: [VaultCompartment] = []) throws -> (tables: Int, sealed: Int) {
        let database = transaction.database
        let tables = try tableNames()
        // The rows put back (`KeptProjects`) come from elsewhere, not from a writer of the store.
        try WritingStore.forgetLinksFoundWhole(in: transaction)
        try database.execute("PRAGMA defer_foreign_keys = ON")
        for table in tables.reversed() { try database.execute("DROP TABLE IF EXISTS \"\(table)\"") }
        var sealed = 0
        for module in modules { sealed += try transaction.removeRecords(ofModule: module.module, keeping: kept) }
        for module in modules {
            for migration in module.migrations { try database.execute(migration.sql) }
        }
        return (tables.count, sealed)
    }

    /// The tables the modules' migrations make, in the order they are made, found by running the
    /// migrations on an empty database in memory (never from the vault's own, possibly damaged, schema).
    static func tableNames() throws -> [String] {
        let reference = try Database(path: ":memory:", create: true, readOnly: false)
        for module in modules {
            for migration in module.migrations { try reference.execute(migration.sql) }
        }
        return try reference.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid").map { try $0.text("name") }
    }

    /// Each module with its tables in the order made and each table's columns, from the modules'
    /// migrations run on an empty database in memory.
    static func reference() throws -> [(module: ModuleSchema, tables: [(name: String, columns: [String])])] {
        let database = try Database(path: ":memory:", create: true, readOnly: false)
        var seen = Set<String>(), found: [(module: ModuleSchema, tables: [(name: String, columns: [String])])] = []
        for module in modules {
            for migration in module.migrations { try database.execute(migration.sql) }
            let names = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid").map { try $0.text("name") }
            let fresh = names.filter { seen.insert($0).inserted }
            found.append((module, try fresh.map { table in
                (table, try database.query("PRAGMA table_info(\"\(table)\")").map { try $0.text("name") })
            }))
        }
        return found
    }

    /// The same reset on a scratch copy's database (the in-memory mode's), outside any vault
    /// transaction and unrecorded: the copy is never written back.
    static func resetScratch(_ database: Database) throws {
        let tables = try tableNames()
        try database.execute("PRAGMA foreign_keys = OFF")
        for table in tables.reversed() { try database.execute("DROP TABLE IF EXISTS \"\(table)\"") }
        for module in modules {
            _ = try ScratchSealedRecords.removeAll(module: module.module, in: database)
            for migration in module.migrations { try database.execute(migration.sql) }
        }
    }
}
