/// One module's tables, as a named list of migrations (GRDB's `registerMigration`), so each module
/// above the core (CryptoVault's own later tables, the writing model, sync, the assistant) owns its
/// schema without renumbering anyone else's (SECURITY.md §4.1.1).
///
/// A migration, once released, is never edited, renamed, reordered or removed: a vault records the
/// names it applied, and the next open checks that they are a prefix of this list. New tables or
/// columns are a new migration appended at the end.
public struct ModuleSchema: Sendable {
    /// The module's name as recorded in `module_migrations.module` ("cryptovault", "writing", …).
    public let module: String
    public let migrations: [NamedMigration]
    /// Whether the layer above mends this module's damaged rows itself (SECURITY.md §4.1.1): a row of
    /// one of its tables that breaks a CHECK or NOT NULL constraint (bit rot in a small integer
    /// column; SQLite's quick_check names the table) then leaves the vault openable, listed in
    /// `Vault.damagedModuleRows`, for that layer to say what is wrong and mend it. False (every
    /// module's default, CryptoVault's own always): such a row refuses the whole vault.
    public let mendsDamagedRows: Bool

    public init(module: String, migrations: [NamedMigration]) {
        self.init(module: module, migrations: migrations, mendsDamagedRows: false)
    }

    private init(module: String, migrations: [NamedMigration], mendsDamagedRows: Bool) {
        self.module = module
        self.migrations = migrations
        self.mendsDamagedRows = mendsDamagedRows
    }

    /// The same schema, registered by the layer that mends its damaged rows (see `mendsDamagedRows`).
    public func mendingDamagedRows() -> ModuleSchema {
        ModuleSchema(module: module, migrations: migrations, mendsDamagedRows: true)
    }
}

/// One step of a module's schema: SQL run once, in the transaction that records its name.
public struct NamedMigration: Sendable {
    /// Unique within its module; recorded in `module_migrations.name`.
    public let name: String
    public let sql: String

    public init(_ name: String, _ sql: String) {
        self.name = name
        self.sql = sql
    }
}

extension ModuleSchema {
    /// CryptoVault's own tables after the frozen core migrations 1 to 13 (`Schema.coreMigrations`).
    /// Always applied first, before the modules a binary adds.
    public static let cryptoVault = ModuleSchema(module: "cryptovault", migrations: [
        // Sealed records (SECURITY.md §4.8): small values sealed into rows, owned by SealedRecordStore.
        NamedMigration(SealedRecordStore.migrationName, SealedRecordStore.migrationSQL),
        // Paired devices' trust levels (SECURITY.md §18.8): the owner's own, or someone else's.
        NamedMigration(DeviceTrust.migrationName, DeviceTrust.migrationSQL),
        // Sealed records' keyed digests (SECURITY.md §4.8): a writer compares without opening.
        NamedMigration(SealedRecordStore.digestMigrationName, SealedRecordStore.digestMigrationSQL),
        // Sealed records looked up by a compact index of their record ids (SECURITY.md §4.8).
        NamedMigration(SealedRecordStore.recordIDIndexMigrationName, SealedRecordStore.recordIDIndexMigrationSQL),
    ])
}
