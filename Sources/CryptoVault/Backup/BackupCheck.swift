import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What can be checked of an extracted backup without any key: the database is a sound vault
/// database of the vault the header names, and it lists exactly the bundles the file carries, each of
/// the length it records. (The audit log is checked by AuditChain; the keys by unlocking.)
public enum BackupCheck {
    public static func checkContents(of directory: String, summary: BackupSummary, modules: [ModuleSchema] = []) throws -> Vault {
        let vault: Vault
        do {
            vault = try Vault.openReadOnly(at: directory, modules: modules)
        } catch let error as CryptoVaultError where [.corruptVault, .notAVault, .inconsistentCopy].contains(error.code) {
            throw BackupReader.corrupt("its database is not a sound vault database: \(error.message)")
        }
        guard vault.vaultID == summary.vaultID else { throw BackupReader.corrupt("its header names another vault than its database") }
        guard vault.passesFullIntegrityCheck() else { throw BackupReader.corrupt("its database fails SQLite's integrity check") }
        let listed = try BackupWriter.bundlesListed(in: vault.databasePath)
        let carried = Dictionary(summary.bundles.map { ($0.id, $0.length) }) { first, _ in first }
        for bundle in listed {
            guard let length = carried[bundle.id] else {
                throw BackupReader.corrupt("its database lists bundle \(bundle.id.hex) but the file does not carry it")
            }
            guard length == bundle.length else {
                throw BackupReader.corrupt("bundle \(bundle.id.hex) is \(length) bytes but its record says \(bundle.length)")
            }
        }
        guard listed.count == summary.bundles.count else {
            throw BackupReader.corrupt("the file carries \(summary.bundles.count - listed.count) bundle(s) its database does not list")
        }
        return vault
    }

    /// A private scratch folder (0700) for checking a backup; the caller removes it.
    public static func scratchDirectory(near path: String) throws -> String {
        let scratch = NSTemporaryDirectory() + "vaultctl-backup-check-\(getpid())-\(ByteEncoding.hex(try SecureRandom.bytes(8)))"
        guard mkdir(scratch, 0o700) == 0 else { throw CryptoVaultError(.io, "cannot create \(scratch): \(String(cString: strerror(errno)))") }
        return scratch
    }
}
