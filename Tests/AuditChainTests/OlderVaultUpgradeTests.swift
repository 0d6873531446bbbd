@testable import AuditChain
@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// A vault made by an older main (vaultctl at d8e0c78, schema 11: two compartments and one stored
/// bundle) still works after this binary upgrades it to core schema 13 and its module migrations.
@Suite("A vault made by an older vaultctl upgrades, unlocks, lists, opens and verifies")
struct OlderVaultUpgradeTests {
    /// A private copy of the fixture, with its passphrase.
    static func copyOfSchema11Vault() throws -> (directory: String, passphrase: SecureBytes) {
        let copy = try PackageFiles.copyOfSchema11Vault()
        return (copy.directory, try SecureBytes(copying: Array(copy.passphrase.utf8)))
    }

    @Test("the schema 11 fixture upgrades to 13 with every module migration recorded, unlocks, lists its compartments and bundle, opens it, and its audit log verifies")
    func schema11VaultUpgrades() throws {
        let (directory, passphrase) = try Self.copyOfSchema11Vault()
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        #expect(try Schema.version(of: Database(path: directory + "/" + Vault.databaseName, create: false)).userVersion == 11)

        let log = AuditLog()
        let vault = try Vault.open(at: directory, journal: log)
        let unlocked = try vault.unlock(with: .passphrase(passphrase))
        try vault.finishCommand()
        try vault.read { database in
            #expect(try Schema.version(of: database).userVersion == Schema.currentVersion)
            let applied = try ModuleMigrationLog.applied(in: database, version: Schema.currentVersion)
            #expect(applied == ModuleSchema.cryptoVault.migrations.map { AppliedMigration(module: "cryptovault", name: $0.name) })
        }

        let compartments = try unlocked.compartments()
        #expect(compartments.count == 2, "\(compartments.map(\.name))")
        let bundles = try unlocked.storedBundles()
        try #require(bundles.count == 1)
        #expect(bundles[0].bundleID.hex == "7a3daae037fc119d22b4eb3ffd827e76")
        var plaintext: [UInt8] = []
        try unlocked.openStored(bundles[0].bundleID).decrypt { plaintext += $0 }
        #expect(plaintext.count == 22)
        // The library records the read (bundle.get); the command that read ends as vaultctl's do.
        try vault.finishCommand()

        let actions = try AuditLogReader(vault: vault).entries().map(\.action)
        #expect(actions.contains("vault.upgrade") && actions.last == "bundle.get", "\(actions)")
        let report = try AuditLogReader(vault: vault).verify()
        #expect(report.entryCount == actions.count && report.uncheckpointedEntries == 0, "\(report)")
    }

    @Test("a read-only open of the schema 11 fixture is refused as older and leaves it at 11")
    func schema11ReadOnlyIsNotUpgraded() throws {
        let (directory, _) = try Self.copyOfSchema11Vault()
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let error = #expect(throws: CryptoVaultError.self) { try Vault.openReadOnly(at: directory) }
        #expect(error?.code == .olderSchema)
        #expect(try Schema.version(of: Database(path: directory + "/" + Vault.databaseName, create: false)).userVersion == 11)
    }
}
