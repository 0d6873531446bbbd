@testable import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// Checks the backup container reader, the backup key and the sealed database against
/// testvectors/backup/backup-v2.json, made by testvectors/independent/backup_container.py from
/// SECURITY.md §13.2 alone (through testvectors/generate.py).
@Suite("Known-answer vectors for the backup container (testvectors/backup)")
struct BackupVectorTests: VectorFields {
    static func load() throws -> [String: Any] { try VectorFile.object(at: "testvectors/backup/backup-v2.json") }

    /// A private folder for one extraction, removed by the caller.
    static func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "backup-vector-\(UUID().uuidString)"
        try #require(mkdir(path, 0o700) == 0)
        return path
    }

    /// Extracts `bytes` as a backup file; the error code if the reader refuses it.
    static func refusal(_ bytes: [UInt8]) throws -> CryptoVaultErrorCode? {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + ".backup"
        defer { unlink(file) }
        FileManager.default.createFile(atPath: file, contents: Data(bytes))
        do { _ = try BackupReader.extract(file, into: folder, durable: false); return nil } catch let error as CryptoVaultError { return error.code }
    }

    @Test("the known file is read: version, vault id, time, the public record, the sealed database and both bundles, as the vector gives them")
    func knownFileIsRead() throws {
        let vector = try Self.load()
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + ".backup"
        defer { unlink(file) }
        FileManager.default.createFile(atPath: file, contents: Data(try Self.hex(vector, "file")))
        let summary = try BackupReader.extract(file, into: folder, durable: false)
        #expect(summary.version == 2)
        #expect(summary.vaultID.bytes == (try Self.hex(vector, "vault_id")))
        #expect(summary.createdAt == UInt64(try #require(vector["created_at"] as? Int)))
        let read = { (name: String) in [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))) }
        #expect(try read(BackupFormat.publicRecordName) == (try Self.hex(vector, "public_record")))
        #expect(try read(BackupFormat.sealedDatabaseName) == (try Self.hex(vector, "sealed_database")))
        let bundles = try #require(vector["bundles"] as? [[String: Any]])
        #expect(summary.bundles.map(\.id.bytes) == (try bundles.map { try Self.hex($0, "id") }))
        for bundle in bundles {
            #expect(try read("assets/" + ByteEncoding.hex(try Self.hex(bundle, "id")) + ".vbundle") == (try Self.hex(bundle, "data")))
        }
    }

    @Test("the backup key opens under the master key to the vector's private key; the file key and the sealed database follow from it and the ephemeral key")
    func backupKeyAndSealedDatabase() throws {
        let vector = try Self.load()
        let vaultID = try VaultID(bytes: try Self.hex(vector, "vault_id"))
        let masterKey = try SecureBytes(copying: try Self.hex(vector, "master_key"))
        let key = try BackupKey.open(try Self.hex(vector, "backup_sealed_key"), publicKey: try Self.hex(vector, "backup_public_key"),
                                     masterKey: masterKey, vaultID: vaultID)
        #expect(key.rawRepresentation.exposedCopy() == (try Self.hex(vector, "backup_private_key")))
        let fileKey = try BackupKey.decapsulate(try Self.hex(vector, "ephemeral_public_key"), with: key, vaultID: vaultID)
        #expect(fileKey.exposedCopy() == (try Self.hex(vector, "file_key")))
        let ephemeral = try X25519PrivateKey(rawRepresentation: try SecureBytes(copying: try Self.hex(vector, "ephemeral_private_key")))
        #expect(ephemeral.publicKey == (try Self.hex(vector, "ephemeral_public_key")))
        let writerKey = try BackupKey.fileKey(shared: try ephemeral.sharedSecret(with: key.publicKey), ephemeralPublicKey: ephemeral.publicKey,
                                              recipientPublicKey: key.publicKey, vaultID: vaultID)
        #expect(writerKey.exposedCopy() == (try Self.hex(vector, "file_key")), "the writer's side agrees")
        #expect(try Self.open(try Self.hex(vector, "sealed_database"), key: key, vaultID: vaultID) == .success(try Self.hex(vector, "database_plaintext")))
        var wrongMaster = try Self.hex(vector, "master_key")
        wrongMaster[0] ^= 1
        #expect(throws: CryptoVaultError(.corruptBackup, "")) {
            try BackupKey.open(try Self.hex(vector, "backup_sealed_key"), publicKey: try Self.hex(vector, "backup_public_key"),
                               masterKey: try SecureBytes(copying: wrongMaster), vaultID: vaultID)
        }
    }

    enum Opened: Equatable {
        case success([UInt8])
        case refused(CryptoVaultErrorCode)
    }

    /// Opens a sealed database record the way a restore does (a file in, a file out).
    static func open(_ sealed: [UInt8], key: X25519PrivateKey, vaultID: VaultID) throws -> Opened {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        FileManager.default.createFile(atPath: folder + "/sealed", contents: Data(sealed))
        do {
            try SealedDatabase.open(folder + "/sealed", into: folder + "/plain", with: key, vaultID: vaultID, durable: false)
        } catch let error as CryptoVaultError {
            #expect(!FileManager.default.fileExists(atPath: folder + "/plain"), "a failed open leaves no plaintext")
            return .refused(error.code)
        }
        return .success([UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/plain"))))
    }

    @Test("sealed databases: two chunks and an empty one open to their plaintext; a dropped last chunk, a changed chunk, tag or ephemeral key and a short record are refused (corruptBackup); the chunk layout of every listed length is the vector's")
    func sealedDatabases() throws {
        let vector = try Self.load()
        let vaultID = try VaultID(bytes: try Self.hex(vector, "vault_id"))
        let key = try X25519PrivateKey(rawRepresentation: try SecureBytes(copying: try Self.hex(vector, "backup_private_key")))
        let cases = try #require(vector["sealed_databases"] as? [[String: Any]])
        var refusedCount = 0
        for c in cases {
            let name = try #require(c["name"] as? String)
            var sealed: [UInt8]
            if let base = c["base"] as? Int {
                sealed = try Self.hex(cases[base], "sealed")
                if let at = c["flip"] as? Int { sealed[at] ^= 0x01 }
                if let cut = c["cut_to"] as? Int { sealed = Array(sealed.prefix(cut)) }
            } else {
                sealed = try Self.hex(c, "sealed")
            }
            let opened = try Self.open(sealed, key: key, vaultID: vaultID)
            if c["reason"] != nil {
                #expect(opened == .refused(.corruptBackup), "\(name)")
                refusedCount += 1
            } else {
                guard case .success(let plaintext) = opened else { Issue.record("\(name): \(opened)"); continue }
                let expected = try Self.hex(c, "plaintext_sha256")
                #expect(plaintext.count == (c["plaintext_length"] as? Int) && SHA256.hash(plaintext) == expected, "\(name)")
            }
        }
        #expect(refusedCount >= 4)
        for layout in try #require(vector["layouts"] as? [[String: Any]]) {
            let length = UInt64(try #require(layout["length"] as? Int))
            #expect(SealedDatabase.chunkCount(sealedLength: length).map(Int.init) == layout["chunks"] as? Int, "length \(length)")
        }
    }

    @Test("every damaged file of the vector is refused by the reader with corruptBackup")
    func damagedFilesAreRefused() throws {
        let cases = try #require(try Self.load()["cases"] as? [[String: Any]])
        #expect(cases.count >= 15)
        for c in cases {
            #expect(try Self.refusal(try Self.hex(c, "file")) == .corruptBackup, "\(c["name"] ?? "?")")
        }
    }

    @Test("every single-bit change of every byte of the known file, and every truncation of it, is refused by the reader with corruptBackup")
    func everyByteAndEveryTruncation() throws {
        let file = try Self.hex(try Self.load(), "file")
        #expect(try Self.refusal(file) == nil)
        var accepted: [Int] = []
        for offset in 0..<file.count {
            var damaged = file
            damaged[offset] ^= 0x01
            if try Self.refusal(damaged) != .corruptBackup { accepted.append(offset) }
        }
        #expect(accepted.isEmpty, "flips accepted at \(accepted.prefix(10))")
        var cut: [Int] = []
        for length in 0..<file.count where try Self.refusal(Array(file.prefix(length))) != .corruptBackup { cut.append(length) }
        #expect(cut.isEmpty, "truncations accepted: \(cut.prefix(10))")
    }
}
