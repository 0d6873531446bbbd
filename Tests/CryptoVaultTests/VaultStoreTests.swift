@testable import CryptoVault
import Foundation
import Testing
import TestSupport

@Suite("Vault store: creation, refusal of bad vaults, durability")
struct VaultStoreTests {
    @Test("a new vault is a private directory with vault.db in WAL mode, assets/, and the current schema")
    func layout() throws {
        let fixture = try TestVault()
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.directory)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: fixture.vault.assetsPath, isDirectory: &isDirectory) && isDirectory.boolValue)
        let database = try Database(path: fixture.vault.databasePath, create: false)
        #expect(try database.queryOne("PRAGMA journal_mode")?.text("journal_mode") == "wal")
        #expect(try Schema.version(of: database).userVersion == Schema.currentVersion)
        #expect(try Schema.version(of: database).applicationID == Schema.applicationID)
        let status = try fixture.reopen().status()
        #expect(status.keyslots.count == 1 && status.keyslots[0].kind == .passphrase)
        #expect(status.keyslots[0].kdf == .passwordHash(TestVault.fastKDF))
    }

    @Test("init refuses a directory that already holds a vault, and leaves it intact")
    func initRefusesExisting() throws {
        let fixture = try TestVault()
        #expect(errorCode { try Vault.create(at: fixture.directory, passphrase: fixture.passphrase, kdf: TestVault.fastKDF, journal: RecordingJournal()) } == .vaultExists)
        _ = try fixture.reopen().unlock(with: .passphrase(fixture.passphrase))
    }

    @Test("init refuses KDF parameters below the floor")
    func initRefusesWeakKDF() throws {
        let directory = NSTemporaryDirectory() + "vault-weak-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let weak = KDFParameters.argon2id(memoryKiB: 8192, iterations: 1, parallelism: 1)
        #expect(errorCode { try Vault.create(at: directory, passphrase: try TestVault.secret("passphrase"), kdf: weak, journal: RecordingJournal()) } == .kdfParametersOutOfRange)
        #expect(!FileManager.default.fileExists(atPath: directory + "/vault.db"))
    }

    @Test("a directory without vault.db is not a vault")
    func notAVault() throws {
        let directory = NSTemporaryDirectory() + "not-a-vault-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(errorCode { try Vault.open(at: directory, journal: RecordingJournal()) } == .notAVault)
        #expect(errorMessage { try Vault.open(at: directory, journal: RecordingJournal()) }?.contains("is not a vault") == true)
    }

    @Test("a SQLite database that is not a vault is refused as such")
    func foreignDatabase() throws {
        let directory = NSTemporaryDirectory() + "foreign-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/assets", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Database(path: directory + "/vault.db", create: true).execute("CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        #expect(errorCode { try Vault.open(at: directory, journal: RecordingJournal()) } == .notAVault)
    }

    @Test("a file that is not a database at all is refused as damaged")
    func garbageDatabase() throws {
        let fixture = try TestVault()
        try Array(repeating: UInt8(0x41), count: 8192).withUnsafeBytes {
            try DurableFile.write($0, to: fixture.vault.databasePath)
        }
        try? FileManager.default.removeItem(atPath: fixture.vault.databasePath + "-wal")
        #expect(errorCode { try fixture.reopen() } == .corruptVault)
    }

    @Test("a database from a newer schema is refused with a message saying so")
    func newerSchema() throws {
        let fixture = try TestVault()
        try fixture.tamper("PRAGMA user_version = \(Schema.currentVersion + 1)")
        #expect(errorCode { try fixture.reopen() } == .newerSchema)
        #expect(errorMessage { try fixture.reopen() }?.contains("newer than this vaultctl supports") == true)
    }

    @Test("a truncated database is refused as damaged, at several lengths")
    func truncatedDatabase() throws {
        let fixture = try TestVault()
        for index in 0..<40 { _ = try fixture.unlocked.createCompartment(named: "compartment \(index)", register: .general) }
        try Database(path: fixture.vault.databasePath, create: false).checkpointAndTruncateLog()
        let original = try #require(FileManager.default.contents(atPath: fixture.vault.databasePath))
        #expect(original.count >= 4 * 4096)
        for fraction in [0.25, 0.5, 0.75] {
            let length = Int(Double(original.count) * fraction) / 4096 * 4096 + 100
            try FileManager.default.removeItem(atPath: fixture.vault.databasePath)
            try [UInt8](original.prefix(length)).withUnsafeBytes { try DurableFile.write($0, to: fixture.vault.databasePath) }
            let code = errorCode { () -> [VaultCompartment] in
                let vault = try fixture.reopen()
                return try vault.unlock(with: .passphrase(fixture.passphrase)).compartments()
            }
            #expect(code == .corruptVault, "truncated to \(length) of \(original.count) bytes")
        }
    }

    @Test("a missing assets folder is refused with a message saying what to do")
    func missingAssets() throws {
        let fixture = try TestVault()
        try FileManager.default.removeItem(atPath: fixture.vault.assetsPath)
        #expect(errorCode { try fixture.reopen() } == .missingAssets)
        #expect(errorMessage { try fixture.reopen() }?.contains("restore it from a backup") == true)
    }

    @Test("UPDATE and DELETE outside the API still cannot produce a vault that opens with the wrong key")
    func swappedWrappedKeyFails() throws {
        let first = try TestVault()
        let second = try TestVault(passphrase: first.passphrase.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
        // Move the second vault's slot into the first: same passphrase, but bound to another vault id.
        let row = try #require(try second.vault.withDatabase { try $0.queryOne("SELECT * FROM keyslots") })
        try first.vault.withDatabase { database in
            try database.query("UPDATE keyslots SET uuid = ?, salt = ?, nonce = ?, wrapped_key = ?",
                               [row["uuid"], row["salt"], row["nonce"], row["wrapped_key"]])
        }
        #expect(errorCode { try first.reopen().unlock(with: .passphrase(first.passphrase)) } == .wrongPassphrase)
    }
}
