import Foundation

/// A vault on disk: one directory holding `vault.db` (SQLite, WAL mode) and `assets/`.
///
/// A `Vault` is locked: it can report its slots and parameters, and `unlock` turns it into an
/// `UnlockedVault` that holds the master key. One instance serialises its own use of the
/// connection; several processes may open the same vault (SQLite serialises their writers).
public final class Vault: @unchecked Sendable {
    public static let databaseName = "vault.db"
    public static let assetsName = "assets"
    /// Where sealed files the database does not know are moved by the sweep (SECURITY.md §7).
    public static let quarantineName = "quarantine"

    public let directory: String
    public let vaultID: VaultID
    /// Where this vault's events are recorded (the audit log, in vaultctl).
    /// Internal: entries reach it only through a transaction (`UnlockedVault.transaction`) or the
    /// narrow keyless paths here (`recordLocked`, a failed unlock, a migration).
    let journal: VaultJournal
    let database: Database
    /// Recursive, so a read made inside a transaction's body (looking up a compartment) runs on the
    /// same connection instead of waiting forever for the lock its own transaction holds.
    private let lock = NSRecursiveLock()
    /// Opened with `readOnly`: nothing is written, not even a checkpoint of the write-ahead log.
    public let isReadOnly: Bool
    /// Bytes in the write-ahead log before this process opened the vault. A vault at rest has none
    /// (every command ends by truncating it); in a copy of the folder, some mean the copy was taken
    /// while a command was writing, and its database may mix pages of two moments.
    public let writeAheadBytesAtOpen: Int
    /// Rows of a mending module's tables (`ModuleSchema.mendsDamagedRows`) that SQLite's quick_check
    /// found damaged at open, by table: what it said of each. Empty for a whole vault; the module's
    /// layer says what is wrong and mends it (SECURITY.md §19.10).
    public let damagedModuleRows: [String: [String]]

    public var databasePath: String { (directory as NSString).appendingPathComponent(Self.databaseName) }
    public var assetsPath: String { (directory as NSString).appendingPathComponent(Self.assetsName) }
    public var quarantinePath: String { (directory as NSString).appendingPathComponent(Self.quarantineName) }

    private init(directory: String, database: Database, vaultID: VaultID, journal: VaultJournal, isReadOnly: Bool = false,
                 writeAheadBytesAtOpen: Int = 0, damagedModuleRows: [String: [String]] = [:]) {
        self.damagedModuleRows = damagedModuleRows
        self.directory = directory
        self.database = database
        self.vaultID = vaultID
        self.journal = journal
        self.isReadOnly = isReadOnly
        self.writeAheadBytesAtOpen = writeAheadBytesAtOpen
    }

    /// Records `event` in its own transaction (for events that change nothing else, such as an unlock).
    func recordAlone(_ event: VaultEvent, keys: AuditKeys?) throws {
        try withDatabase { database in
            try database.writeTransaction { try journal.append(event, in: database, vaultID: vaultID, keys: keys) }
        }
    }

    /// Records an action that needs no key and changes nothing else, on a vault that is not unlocked:
    /// an audit verification or export, a restored backup (SECURITY.md §8.1, "recorded without keys").
    /// It takes an action alone, never details: details are sealed under keys a locked vault has not.
    public func recordLocked(_ action: AuditAction) throws {
        try recordAlone(VaultEvent(action), keys: nil)
    }

    /// Runs `body` on one consistent snapshot of the database (a read transaction), read-only: a
    /// statement in it that would change the vault is refused (`.writeInsideRead`), so this door to
    /// the connection is not a second, unaudited write path (issue 12). Package-internal, as
    /// `Database` is: a caller outside the package reads through the modules' typed readers.
    package func read<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try withDatabase { database in try database.readTransaction { try database.readingOnly { try body(database) } } }
    }

    /// Runs `body` in a write transaction for the journal's own state (the audit log's signing keys),
    /// never for vault data: every change to the vault is an `UnlockedVault.transaction` with its
    /// entries. `package`, so no library caller outside this package has an unaudited write.
    package func writeJournalState<Result>(_ body: (Database) throws -> Result) throws -> Result {
        try withDatabase { database in try database.writeTransaction { try body(database) } }
    }

    /// Tells the journal a command's writes are done (the audit log signs a checkpoint). Not on the
    /// in-memory mode's copy: a checkpoint signed over its log (which the vault's never holds) would
    /// be a second history under the vault's signing key, and a witness's cosignature of it a fork.
    public func finishCommand() throws {
        guard inMemoryCopyReason == nil else { return }
        try withDatabase { try journal.commandFinished(in: $0, vaultID: vaultID) }
    }

    /// Runs `body` with exclusive use of this instance's connection.
    func withDatabase<Result>(_ body: (Database) throws -> Result) throws -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    // MARK: Opening

    /// Opens an existing vault, refusing anything that is not one, is damaged, or is too new.
    ///
    /// An older vault is migrated only when `upgrade` is true (a command that writes): a read-only
    /// command (`status`, `audit verify`) must not change the vault it reports on, so it is refused
    /// with `.olderSchema` and a hint to run a write command. The upgrade is recorded in the journal
    /// in the migration's own transaction (`vault.upgrade`), so no migration changes the vault unseen.
    ///
    /// `modules` are the schemas of the modules above CryptoVault that this binary has (CryptoVault's
    /// own is always included): their pending migrations are applied with the upgrade, and a vault
    /// that applied a migration none of them knows is refused as `.newerSchema` (SECURITY.md §4.1.1).
    /// `journal` is required: a vault that changes records every change (vaultctl's is the audit log).
    /// `package`, as the journal type is: outside the package a vault is opened with the audit log.
    package static func open(at directory: String, journal: VaultJournal, upgrade: Bool = true,
                            modules: [ModuleSchema] = []) throws -> Vault {
        try open(at: directory, journal: journal, upgrade: upgrade, readOnly: false, modules: modules)
    }

    /// Opens it without writing anything, through a read-only connection (to verify a copy or a
    /// restored backup): no configuration, no migration, no checkpoint of the write-ahead log on close.
    /// Its journal refuses every entry (`.database`): a read-only vault has nothing to record, and
    /// an operation that tries fails rather than happening unrecorded.
    public static func openReadOnly(at directory: String, modules: [ModuleSchema] = []) throws -> Vault {
        try open(at: directory, journal: ReadOnlyJournal(), upgrade: false, readOnly: true, modules: modules)
    }

    private static func open(at directory: String, journal: VaultJournal, upgrade: Bool, readOnly: Bool,
                             modules: [ModuleSchema]) throws -> Vault {
        try Sodium.ensureInitialized()
        let schema = try VaultSchema(adding: modules)
        let databasePath = (directory as NSString).appendingPathComponent(databaseName)
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw CryptoVaultError(.notAVault, "\(directory) is not a vault (no \(databaseName)); create one with 'vaultctl init'")
        }
        let writeAheadBytes = writeAheadLogSize(databasePath)
        let database = try Database(path: databasePath, create: false, readOnly: readOnly)
        let schemaVersion = try checkIdentity(of: database, directory: directory)
        if !readOnly { try Schema.configure(database) }
        let damagedModuleRows: [String: [String]]
        do {
            damagedModuleRows = try VaultIntegrity.check(database, schema: schema)
        } catch let error as CryptoVaultError where error.code == .corruptVault && writeAheadBytes > 0 {
            throw CryptoVaultError(.inconsistentCopy, inconsistentCopyMessage(directory, writeAheadBytes: writeAheadBytes))
        }
        let plan = try schema.plan(for: database, version: schemaVersion)
        if !plan.isCurrent {
            guard upgrade else {
                if let step = plan.pending.first, schemaVersion == Schema.currentVersion {
                    throw Schema.pendingModuleMigrationError(module: step.module, name: step.migration.name)
                }
                throw Schema.olderSchemaError(schemaVersion)
            }
            try schema.checkTablesMatch(database, version: schemaVersion)
            let vaultID = try readVaultID(database)
            try schema.migrate(database) { _ in
                try journal.append(VaultEvent(.vaultUpgrade), in: database, vaultID: vaultID, keys: nil)
            }
        }
        let vaultID = try readVaultID(database)
        let assets = (directory as NSString).appendingPathComponent(assetsName)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: assets, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CryptoVaultError(.missingAssets,
                "the vault's \(assetsName)/ folder is missing from \(directory); restore it from a backup before using this vault")
        }
        return Vault(directory: directory, database: database, vaultID: vaultID, journal: journal, isReadOnly: readOnly,
                     writeAheadBytesAtOpen: writeAheadBytes, damagedModuleRows: damagedModuleRows)
    }

    /// For `restore`, which exists to bring back lost bundle files: a vault whose database is there but
    /// whose assets/ folder is gone gets an empty one (0700, made durable), so every bundle can then be
    /// fetched into it. Returns whether it had to. Anything other than a missing folder is left alone.
    public static func recreateMissingAssets(in directory: String) throws -> Bool {
        let databasePath = (directory as NSString).appendingPathComponent(databaseName)
        let assets = (directory as NSString).appendingPathComponent(assetsName)
        var info = stat()
        guard FileManager.default.fileExists(atPath: databasePath), lstat(assets, &info) != 0, errno == ENOENT else { return false }
        guard mkdir(assets, 0o700) == 0 || errno == EEXIST else {
            throw CryptoVaultError(.io, "cannot recreate \(assets): \(String(cString: strerror(errno)))")
        }
        try DurableFile.syncDirectory(directory)
        return true
    }

    /// The size of `databasePath`'s write-ahead log (0 when there is none).
    static func writeAheadLogSize(_ databasePath: String) -> Int {
        var info = stat()
        guard stat(databasePath + "-wal", &info) == 0 else { return 0 }
        return Int(info.st_size)
    }

    /// What a torn copy is called: never "altered" or "damaged", which would be a false tamper alarm.
    public static func inconsistentCopyMessage(_ directory: String, writeAheadBytes: Int) -> String {
        "inconsistent copy: taken while the vault was being written (\(directory) has \(writeAheadBytes) bytes of unfinished "
            + "write-ahead log, and its database mixes two moments); this is not evidence of tampering. Take a consistent copy "
            + "with 'vaultctl backup -o FILE'; if this is the live vault and not a copy, treat it as damage"
    }

    /// Whether SQLite's full integrity check (indexes against tables, which quick_check skips) finds
    /// nothing wrong: a copy that mixes pages of two moments usually fails it.
    public func passesFullIntegrityCheck() -> Bool {
        let findings = try? withDatabase { try $0.query("PRAGMA integrity_check").compactMap { try? $0.text("integrity_check") } }
        return findings == ["ok"]
    }

    /// Returns the schema version after checking the file is a vault this build can read.
    private static func checkIdentity(of database: Database, directory: String) throws -> Int64 {
        let version: (applicationID: Int64, userVersion: Int64)
        do {
            version = try Schema.version(of: database)
        } catch let error as CryptoVaultError where error.code == .corruptVault {
            throw CryptoVaultError(.corruptVault, "the vault database in \(directory) is damaged or not a database")
        }
        guard version.applicationID == Schema.applicationID else {
            throw CryptoVaultError(.notAVault, "\(directory) holds a database that is not a vault")
        }
        guard version.userVersion <= Schema.currentVersion else { throw Schema.newerSchemaError(version.userVersion) }
        return version.userVersion
    }

    /// The device id every audit entry of this vault carries (`vault_meta.device_id`, 16 random bytes
    /// made by migration 3; SECURITY.md §4.7.1: the vault's `device.create` entry links it to the
    /// key-derived `DeviceProfile` id).
    public func auditDeviceID() throws -> AuditDeviceID {
        guard let id = try read({ try Self.auditDeviceID(in: $0) }) else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: it has no device id")
        }
        return id
    }

    /// `auditDeviceID()` in the caller's transaction; nil when missing or not 16 bytes.
    package static func auditDeviceID(in database: Database) throws -> AuditDeviceID? {
        guard let bytes = try database.queryOne("SELECT value FROM vault_meta WHERE key = 'device_id'")?.blob("value") else { return nil }
        return try? AuditDeviceID(bytes: bytes)
    }

    private static func readVaultID(_ database: Database) throws -> VaultID {
        guard let row = try database.queryOne("SELECT value FROM vault_meta WHERE key = 'vault_id'"),
              case .blob(let id) = row["value"], id.count == 16 else {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: it has no vault id")
        }
        return try VaultID(bytes: id)
    }

    // MARK: Creating

    /// Creates a new vault in `directory` (made if missing; it must hold no vault) with one
    /// passphrase slot. The directory and database are private to the owner (0700 / 0600).
    ///
    /// The database is built under a temporary name and renamed into place only when complete, so
    /// an interrupted init leaves no half-made vault behind (and never replaces an existing one).
    package static func create(at directory: String, passphrase: SecureBytes, kdf: KDFParameters,
                              journal: VaultJournal, modules: [ModuleSchema] = []) throws -> UnlockedVault {
        try Sodium.ensureInitialized()
        try kdf.validate()
        try refuseExisting(at: directory)
        let databasePath = (directory as NSString).appendingPathComponent(databaseName)
        try makePrivateDirectory(directory)
        // An existing folder keeps the mode it was made with (often 0755): the vault's folder is private.
        guard chmod(directory, 0o700) == 0 else {
            throw CryptoVaultError(.io, "cannot make \(directory) private (0700): \(String(cString: strerror(errno)))")
        }
        try makePrivateDirectory((directory as NSString).appendingPathComponent(assetsName))
        let vaultID = try VaultID.random()
        let masterKey = try SecureBytes.random(count: KeyHierarchy.masterKeySize)
        let temporaryPath = databasePath + ".creating-\(getpid())"
        do {
            try populateNewDatabase(at: temporaryPath, directory: directory, vaultID: vaultID, masterKey: masterKey,
                                    passphrase: passphrase, kdf: kdf, journal: journal, schema: try VaultSchema(adding: modules))
            try DurableFile.renameWithoutReplacing(temporaryPath, to: databasePath)
        } catch {
            unlink(temporaryPath)
            if (error as? CryptoVaultError)?.code == .io, FileManager.default.fileExists(atPath: databasePath) {
                throw CryptoVaultError(.vaultExists, "\(directory) already holds a vault; refusing to overwrite it")
            }
            throw error
        }
        let vault = try open(at: directory, journal: journal, modules: modules)
        try vault.finishCommand()
        return UnlockedVault(vault: vault, masterKey: masterKey, unlockedSlotID: try vault.keyslots().first?.id)
    }

    /// Throws `.vaultExists` if `directory` already holds a vault. `init` asks this before it calibrates
    /// the KDF or asks for a passphrase, so a user is not made to wait or type for a certain refusal.
    public static func refuseExisting(at directory: String) throws {
        let databasePath = (directory as NSString).appendingPathComponent(databaseName)
        if FileManager.default.fileExists(atPath: databasePath) {
            throw CryptoVaultError(.vaultExists, "\(directory) already holds a vault; refusing to overwrite it")
        }
    }

    private static func populateNewDatabase(at path: String, directory: String, vaultID: VaultID, masterKey: SecureBytes,
                                            passphrase: SecureBytes, kdf: KDFParameters, journal: VaultJournal,
                                            schema: VaultSchema) throws {
        let database = try Database(path: path, create: true)
        try schema.migrate(database)
        let vault = Vault(directory: directory, database: database, vaultID: vaultID, journal: journal)
        let unlocked = UnlockedVault(vault: vault, masterKey: masterKey, unlockedSlotID: nil)
        try database.writeTransaction {
            let now = VaultClock.system.now()
            try database.query("INSERT INTO vault_meta (key, value) VALUES ('vault_id', ?)", [.blob(vaultID.bytes)])
            try database.query("INSERT INTO vault_meta (key, value) VALUES ('created_at', ?)", [.integer(now)])
            try unlocked.storeKDFPolicy(kdf, in: database)
            try unlocked.markMetadataBound(in: database)
            try unlocked.storeBackupKey(in: database)
            try unlocked.insertPassphraseSlot(passphrase, parameters: kdf, in: database)
            try unlocked.journal(VaultEvent(.vaultInit), in: database)
        }
        // Rollback-journal mode until here: the finished file is self-contained, so renaming it is safe.
        try database.execute("PRAGMA synchronous = FULL")
        _ = try database.query("PRAGMA wal_checkpoint")
    }

    private static func makePrivateDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw CryptoVaultError(.io, "cannot create \(path): \(error.localizedDescription)")
        }
    }

    // MARK: Reading without unlocking

    /// The keyslots that can be read, and why each other row is refused (one message per row), for
    /// commands that report on the slots without being locked out by one hostile row.
    public func keyslotsSkippingDamaged() throws -> (slots: [Keyslot], refused: [String]) {
        let (slots, refusals) = try readableKeyslots()
        return (slots, refusals.map(\.message))
    }

    /// Every keyslot, in id order. Throws if any row is damaged or out of bounds.
    public func keyslots() throws -> [Keyslot] {
        let (slots, refusals) = try readableKeyslots()
        if let refusal = refusals.first { throw refusal }
        return slots
    }

    /// The slots that can be tried, and the reason each other row was refused. One hostile or damaged
    /// row must not lock the owner out: unlock tries the readable slots and reports the refusals only
    /// if none of them opens.
    func readableKeyslots() throws -> (slots: [Keyslot], refusals: [CryptoVaultError]) {
        try withDatabase { try Self.readableKeyslots(in: $0) }
    }

    /// `readableKeyslots()` of a database holding a `keyslots` table: the vault's, or a backup's
    /// public record's copy of it.
    static func readableKeyslots(in database: Database) throws -> (slots: [Keyslot], refusals: [CryptoVaultError]) {
        let rows = try database.query("SELECT * FROM keyslots ORDER BY id")
        var slots: [Keyslot] = []
        var refusals: [CryptoVaultError] = []
        for row in rows {
            do {
                slots.append(try Keyslot(row: row))
            } catch let error as CryptoVaultError {
                let slot = (try? row.integer("id")).map { "keyslot \($0)" } ?? "a keyslot"
                refusals.append(CryptoVaultError(error.code, "\(slot) is refused: \(error.message)"))
            }
        }
        return (slots, refusals)
    }

    /// The parameters new and upgraded passphrase slots get (set at init, possibly calibrated), as
    /// stored: unauthenticated, for `status`. Unlocking trusts only `authenticatedKDFPolicy()`.
    public func kdfPolicy() throws -> KDFParameters {
        try withDatabase { database in
            guard let row = try database.queryOne("SELECT value FROM vault_meta WHERE key = 'kdf_policy'"),
                  case .text(let text) = row["value"] else {
                throw CryptoVaultError(.corruptVault, "the vault database is damaged: it has no KDF policy")
            }
            return try KDFParameters(encoded: text)
        }
    }

    public func status() throws -> VaultStatus {
        try withDatabase { database in
            try database.readTransaction {
                let created = try database.queryOne("SELECT value FROM vault_meta WHERE key = 'created_at'")?.integer("value") ?? 0
                let keyslots = try database.query("SELECT * FROM keyslots ORDER BY id").map { row in
                    Result { try Keyslot(row: row) }.mapError { $0 as? CryptoVaultError ?? CryptoVaultError(.corruptVault, "\($0)") }
                }
                let counts = try CompartmentStore.liveCounts(in: database)
                return VaultStatus(
                    vaultID: vaultID.hex,
                    createdAt: created,
                    schemaVersion: Schema.currentVersion,
                    keyslots: keyslots.compactMap { try? $0.get() },
                    damagedKeyslots: keyslots.compactMap { result in
                        if case .failure(let error) = result { return error.message }
                        return nil
                    },
                    compartmentCount: counts.total,
                    privilegedCompartmentCount: counts.privileged)
            }
        }
    }
}

/// What `vaultctl status` reports without unlocking.
public struct VaultStatus: Sendable {
    public let vaultID: String
    public let createdAt: Int64
    public let schemaVersion: Int64
    public let keyslots: [Keyslot]
    /// Why each unreadable keyslot row is refused (damaged, or KDF parameters out of bounds).
    public let damagedKeyslots: [String]
    public let compartmentCount: Int
    public let privilegedCompartmentCount: Int
}

/// Seconds since the Unix epoch, UTC.

/// The `vault_meta` values other files need (the backup key's), inside the caller's transaction:
/// every statement naming the table is in this file or MetadataBinding.swift (OwnedSQLGuardTests).
enum VaultMeta {
    static func blob(_ key: String, in database: Database) throws -> [UInt8]? {
        guard case .blob(let bytes)? = try database.queryOne("SELECT value FROM vault_meta WHERE key = ?", [.text(key)])?["value"] else { return nil }
        return bytes
    }

    /// Adds a value; a key already present is refused by the table's primary key.
    static func insert(_ key: String, _ value: [UInt8], in database: Database) throws {
        try database.query("INSERT INTO vault_meta (key, value) VALUES (?, ?)", [.text(key), .blob(value)])
    }
}
