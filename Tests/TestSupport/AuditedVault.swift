import AuditChain
import CryptoVault
import Foundation

// Vaults audited by the real audit log (SECURITY.md §8), shared by the test targets.

/// A vault whose journal is the audit log, in a fresh temporary directory removed afterwards. Made
/// with the KDF floor so tests stay fast. `command` closes a step as vaultctl closes a command.
public final class AuditedVault {
    public static let passphrase = "correct horse battery staple"

    public let root: String
    public let directory: String
    public let log: AuditLog
    public let unlocked: UnlockedVault

    /// `modules`: the schemas of the modules above CryptoVault the vault carries (none by default).
    public init(modules: [ModuleSchema] = []) throws {
        root = NSTemporaryDirectory() + "audit-log-test-\(UUID().uuidString)"
        directory = root + "/vault"
        log = AuditLog()
        unlocked = try Vault.create(at: directory, passphrase: try TestVault.secret(Self.passphrase), kdf: .argon2idFloor, journal: log,
                                    modules: modules)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    public var vault: Vault { unlocked.vault }
    public var reader: AuditLogReader { AuditLogReader(vault: vault) }

    /// Runs one command's work, then ends the command as vaultctl does (a checkpoint of what it recorded).
    @discardableResult
    public func command<Result>(_ body: () throws -> Result) throws -> Result {
        let result = try body()
        try vault.finishCommand()
        return result
    }

    /// Unlocks as every vaultctl command that takes a credential does (recording `vault.unlock`).
    public func unlock(_ passphrase: String = AuditedVault.passphrase) throws -> UnlockedVault {
        try vault.unlock(with: .passphrase(try TestVault.secret(passphrase)))
    }

    public func put(_ name: String, contents: String, in compartment: VaultCompartment, by session: UnlockedVault) throws -> StoredBundle {
        try session.put(from: try FileDescriptor.openForReading(try inputFile(contents)), compartment: compartment,
                        metadata: BundleMetadata(name: name, modificationTime: 1_700_000_000))
    }

    public func inputFile(_ contents: String) throws -> String {
        let path = root + "/input-\(UUID().uuidString)"
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    public func export() throws -> [UInt8] {
        let path = root + "/export-\(UUID().uuidString)"
        _ = try reader.export(to: try FileDescriptor.createExclusive(path))
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Every byte of vault.db and vault.db-wal, as someone copying the files gets them.
    public func databaseFileBytes() -> [UInt8] {
        ["", "-wal"].flatMap { suffix in FileManager.default.contents(atPath: vault.databasePath + suffix).map { [UInt8]($0) } ?? [] }
    }

    /// A copy of vault.db, complete once a command has finished (its WAL is then empty).
    public func copyOfDatabase() throws -> String {
        let path = root + "/copy-\(UUID().uuidString).db"
        try FileManager.default.copyItem(atPath: vault.databasePath, toPath: path)
        return path
    }

    /// A copy of the vault (vault.db and an empty assets/), to open as a vault of its own.
    public func copyOfVault(database: String? = nil) throws -> String {
        let copy = root + "/vault-copy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: copy + "/" + Vault.assetsName, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: database ?? vault.databasePath, toPath: copy + "/" + Vault.databaseName)
        return copy
    }

    /// Runs SQL through a connection of its own, as someone editing the file would.
    public func tamper(_ sql: String) throws {
        try Database(path: vault.databasePath, create: false).execute(sql)
    }

    public func storedEntries() throws -> [(entry: [UInt8], leafHash: [UInt8])] {
        try vault.read { database in
            try database.query("SELECT entry, leaf_hash FROM audit_entries ORDER BY seq").map { (try $0.blob("entry"), try $0.blob("leaf_hash")) }
        }
    }
}

/// A vault audited by the real audit log, in a temporary directory removed afterwards, with a
/// privileged compartment "chart" (healthcare) and an ordinary one "blog" (general): the fixture of
/// the session, egress funnel and leak guard tests, which subclass it with their own steps.
open class AuditedVaultFixture {
    public let root = NSTemporaryDirectory() + "privileged-session-test-\(UUID().uuidString)"
    public let unlocked: UnlockedVault
    public let chart: VaultCompartment
    public let blog: VaultCompartment

    public init() throws {
        unlocked = try Vault.create(at: root + "/vault", passphrase: try TestVault.secret(AuditedVault.passphrase),
                                    kdf: .argon2idFloor, journal: AuditLog())
        chart = try unlocked.createCompartment(named: "chart", register: .healthcare)
        blog = try unlocked.createCompartment(named: "blog", register: .general)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }
}
