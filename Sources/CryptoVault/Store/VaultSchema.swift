/// The whole schema a binary knows: the frozen core migrations (`Schema.coreMigrations`, tracked by
/// `user_version`), then each module's named migrations (tracked by `module_migrations` rows),
/// CryptoVault's own first and then the modules the binary adds, in the order given (SECURITY.md §4.1.1).
struct VaultSchema: Sendable {
    let modules: [ModuleSchema]

    /// Throws `.invalidInput` for a list no vault could be migrated by: two modules of one name, two
    /// migrations of one name in a module, or an empty name (a programming error, caught at the first open).
    init(adding modules: [ModuleSchema]) throws {
        let all = [ModuleSchema.cryptoVault] + modules
        var moduleNames = Set<String>()
        for schema in all {
            guard !schema.module.isEmpty, moduleNames.insert(schema.module).inserted else {
                throw CryptoVaultError(.invalidInput, "the module schema '\(schema.module)' is empty-named or listed twice")
            }
            var names = Set<String>()
            for migration in schema.migrations where migration.name.isEmpty || !names.insert(migration.name).inserted {
                throw CryptoVaultError(.invalidInput, "module '\(schema.module)' lists the migration '\(migration.name)' twice or unnamed")
            }
        }
        self.modules = all
    }

    /// A module migration not yet applied to a vault.
    struct Pending: Sendable {
        let module: String
        let migration: NamedMigration
    }

    /// What a vault of `version` has applied and what this binary would still apply to it.
    struct Plan: Sendable {
        let version: Int64
        let applied: [AppliedMigration]
        let pending: [Pending]
        var isCurrent: Bool { version == Schema.currentVersion && pending.isEmpty }
    }

    /// Reads what the vault applied and checks it against the known lists: a name this binary does not
    /// know was applied by a newer one (refused as `.newerSchema`, as a newer `user_version` is); the
    /// names of a module must be the first of its list, in its order, or the table was edited.
    func plan(for database: Database, version: Int64) throws -> Plan {
        let applied = try ModuleMigrationLog.applied(in: database, version: version)
        if let unknown = applied.first(where: { sql(of: $0) == nil }) {
            throw CryptoVaultError(.newerSchema, """
                this vault has the migration '\(unknown.name)' of module '\(unknown.module)', which this vaultctl does not know \
                (a newer vaultctl applied it); upgrade vaultctl
                """)
        }
        var pending: [Pending] = []
        for schema in modules {
            let names = applied.filter { $0.module == schema.module }.map(\.name)
            guard names.elementsEqual(schema.migrations.prefix(names.count).map(\.name)) else {
                throw CryptoVaultError(.corruptVault, """
                    the vault database is damaged: module '\(schema.module)' records the migrations \(names) \
                    out of their order \(schema.migrations.map(\.name))
                    """)
            }
            pending += schema.migrations.dropFirst(names.count).map { Pending(module: schema.module, migration: $0) }
        }
        return Plan(version: version, applied: applied, pending: pending)
    }

    /// Brings a fresh database (version 0) or an older vault up to date in one write transaction: the
    /// core migrations still due, then every pending module migration, each with the row that records
    /// it. `recordUpgrade` runs last in the same transaction when an existing vault changed (not for a
    /// fresh database), so an upgrade and its audit entry commit together.
    func migrate(_ database: Database, recordUpgrade: (_ from: Int64) throws -> Void = { _ in }) throws {
        try database.writeTransaction {
            let (_, found) = try Schema.version(of: database)
            guard found <= Schema.currentVersion else { throw Schema.newerSchemaError(found) }
            let plan = try plan(for: database, version: found)
            try checkTablesMatch(database, plan: plan)
            for index in Int(found)..<Schema.coreMigrations.count {
                try database.execute(Schema.coreMigrations[index])
            }
            try database.execute("PRAGMA application_id = \(Schema.applicationID); PRAGMA user_version = \(Schema.currentVersion)")
            let now = VaultClock.system.now()
            for step in plan.pending {
                try database.execute(step.migration.sql)
                try ModuleMigrationLog.record(AppliedMigration(module: step.module, name: step.migration.name), at: now, in: database)
            }
            if found > 0 && !plan.isCurrent { try recordUpgrade(found) }
        }
    }

    /// A migration is run only on a database whose tables are exactly those its version and its
    /// applied module migrations make: a negative or lowered `user_version` (0 on a populated vault,
    /// 10 on a vault of 11), a dropped module table or a deleted `module_migrations` row would re-run
    /// migrations on data they were not written for, so it is refused as a damaged vault.
    func checkTablesMatch(_ database: Database, version: Int64) throws {
        try checkTablesMatch(database, plan: try plan(for: database, version: version))
    }

    private func checkTablesMatch(_ database: Database, plan: Plan) throws {
        let version = plan.version
        guard version >= 0, version <= Schema.currentVersion else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: its schema version \(version) is not one vaultctl ever wrote")
        }
        let expected = try tables(atVersion: Int(version), applied: plan.applied)
        let found = try Schema.tables(of: database)
        guard found == expected else {
            let unexpected = found.subtracting(expected).sorted().prefix(3).joined(separator: ", ")
            let missing = expected.subtracting(found).sorted().prefix(3).joined(separator: ", ")
            throw CryptoVaultError(.corruptVault, """
                the vault database is damaged: its tables are not those of schema version \(version)\(plan.applied.isEmpty ? "" : " and its \(plan.applied.count) module migration(s)") \
                (unexpected: \(unexpected.isEmpty ? "none" : unexpected); missing: \(missing.isEmpty ? "none" : missing)); \
                its version was lowered or its tables edited, and it is not migrated
                """)
        }
    }

    /// The tables and columns a vault has after core migrations 1 to `version` and then `applied`,
    /// made by running them on an empty database in memory.
    func tables(atVersion version: Int, applied: [AppliedMigration]) throws -> Set<String> {
        let reference = try Database(path: ":memory:", create: true)
        for index in 0..<min(max(version, 0), Schema.coreMigrations.count) { try reference.execute(Schema.coreMigrations[index]) }
        for migration in applied {
            guard let sql = sql(of: migration) else { throw CryptoVaultError(.newerSchema, "unknown migration '\(migration.name)'") }
            try reference.execute(sql)
        }
        return try Schema.tables(of: reference)
    }

    /// The tables of the modules that mend their damaged rows (`ModuleSchema.mendsDamagedRows`), each
    /// with its module: the tables each one's migrations make, run in order on an empty database in
    /// memory after the core's and the modules' before it (never read from the vault's own schema).
    func tablesMendingDamagedRows() throws -> [String: String] {
        guard modules.contains(where: \.mendsDamagedRows) else { return [:] }
        let reference = try Database(path: ":memory:", create: true)
        for migration in Schema.coreMigrations { try reference.execute(migration) }
        var owners: [String: String] = [:], seen = try Self.tableNames(of: reference)
        for schema in modules {
            for migration in schema.migrations { try reference.execute(migration.sql) }
            let now = try Self.tableNames(of: reference)
            if schema.mendsDamagedRows { for table in now.subtracting(seen) { owners[table] = schema.module } }
            seen = now
        }
        return owners
    }

    private static func tableNames(of database: Database) throws -> Set<String> {
        Set(try database.query("SELECT name FROM sqlite_master WHERE type = 'table'").map { try $0.text("name") })
    }

    /// The tables and columns of a vault made by this binary today.
    func currentTables() throws -> Set<String> {
        try tables(atVersion: Schema.coreMigrations.count,
                   applied: modules.flatMap { schema in schema.migrations.map { AppliedMigration(module: schema.module, name: $0.name) } })
    }

    private func sql(of migration: AppliedMigration) -> String? {
        modules.first { $0.module == migration.module }?.migrations.first { $0.name == migration.name }?.sql
    }
}
