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
struct BackupVectorTests {
    /// testvectors/backup/backup-v2.json: the known file, its keys and records, and its cases.
    struct Vector: Decodable {
        struct Bundle: Decodable { let id, data: LowercaseHex }
        struct Damaged: Decodable {
            let name: String
            let file: LowercaseHex
        }
        /// A sealed database to open (`sealed`, to `plaintextLength` bytes with `plaintextSha256`) or,
        /// made from the case at index `base` by flipping bit 0 of byte `flip` or cutting to `cutTo`
        /// bytes, to refuse (`reason`).
        struct SealedCase: Decodable {
            let name: String
            let sealed: LowercaseHex?
            let plaintextLength: Int?
            let plaintextSha256: LowercaseHex?
            let base: Int?
            let flip: Int?
            let cutTo: Int?
            let reason: String?
        }
        struct Layout: Decodable {
            let length: UInt64
            let chunks: Int?
        }
        let vaultId: LowercaseHex
        let createdAt: UInt64
        let masterKey, backupPrivateKey, backupPublicKey, backupSealedKey: LowercaseHex
        let ephemeralPrivateKey, ephemeralPublicKey, fileKey: LowercaseHex
        let publicRecord, databasePlaintext, sealedDatabase, file: LowercaseHex
        let bundles: [Bundle]
        let cases: [Damaged]
        let sealedDatabases: [SealedCase]
        let layouts: [Layout]
    }

    static func load() throws -> Vector {
        try PackageFiles.decode("testvectors/backup/backup-v2.json", keys: .convertFromSnakeCase)
    }

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
        FileManager.default.createFile(atPath: file, contents: Data(vector.file.bytes))
        let summary = try BackupReader.extract(file, into: folder, durable: false)
        #expect(summary.version == 2)
        #expect(summary.vaultID.bytes == vector.vaultId.bytes)
        #expect(summary.createdAt == vector.createdAt)
        let read = { (name: String) in [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))) }
        #expect(try read(BackupFormat.publicRecordName) == vector.publicRecord.bytes)
        #expect(try read(BackupFormat.sealedDatabaseName) == vector.sealedDatabase.bytes)
        let bundles = vector.bundles
        #expect(summary.bundles.map(\.id.bytes) == bundles.map(\.id.bytes))
        for bundle in bundles {
            #expect(try read("assets/" + ByteEncoding.hex(bundle.id.bytes) + ".vbundle") == bundle.data.bytes)
        }
    }

    @Test("the backup key opens under the master key to the vector's private key; the file key and the sealed database follow from it and the ephemeral key")
    func backupKeyAndSealedDatabase() throws {
        let vector = try Self.load()
        let vaultID = try VaultID(bytes: vector.vaultId.bytes)
        let masterKey = try SecureBytes(copying: vector.masterKey.bytes)
        let key = try BackupKey.open(vector.backupSealedKey.bytes, publicKey: vector.backupPublicKey.bytes,
                                     masterKey: masterKey, vaultID: vaultID)
        #expect(key.rawRepresentation.exposedCopy() == vector.backupPrivateKey.bytes)
        let fileKey = try BackupKey.decapsulate(vector.ephemeralPublicKey.bytes, with: key, vaultID: vaultID)
        #expect(fileKey.exposedCopy() == vector.fileKey.bytes)
        let ephemeral = try X25519PrivateKey(rawRepresentation: try SecureBytes(copying: vector.ephemeralPrivateKey.bytes))
        #expect(ephemeral.publicKey == vector.ephemeralPublicKey.bytes)
        let writerKey = try BackupKey.fileKey(shared: try ephemeral.sharedSecret(with: key.publicKey), ephemeralPublicKey: ephemeral.publicKey,
                                              recipientPublicKey: key.publicKey, vaultID: vaultID)
        #expect(writerKey.exposedCopy() == vector.fileKey.bytes, "the writer's side agrees")
        #expect(try Self.open(vector.sealedDatabase.bytes, key: key, vaultID: vaultID) == .success(vector.databasePlaintext.bytes))
        var wrongMaster = vector.masterKey.bytes
        wrongMaster[0] ^= 1
        #expect(throws: CryptoVaultError(.corruptBackup, "")) {
            try BackupKey.open(vector.backupSealedKey.bytes, publicKey: vector.backupPublicKey.bytes,
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
        let vaultID = try VaultID(bytes: vector.vaultId.bytes)
        let key = try X25519PrivateKey(rawRepresentation: try SecureBytes(copying: vector.backupPrivateKey.bytes))
        let cases = vector.sealedDatabases
        var refusedCount = 0
        for c in cases {
            let name = c.name
            var sealed: [UInt8]
            if let base = c.base {
                sealed = try #require(cases[base].sealed, "\(name): its base has no sealed record").bytes
                if let at = c.flip { sealed[at] ^= 0x01 }
                if let cut = c.cutTo { sealed = Array(sealed.prefix(cut)) }
            } else {
                sealed = try #require(c.sealed, "\(name): no sealed record").bytes
            }
            let opened = try Self.open(sealed, key: key, vaultID: vaultID)
            if c.reason != nil {
                #expect(opened == .refused(.corruptBackup), "\(name)")
                refusedCount += 1
            } else {
                guard case .success(let plaintext) = opened else { Issue.record("\(name): \(opened)"); continue }
                let expected = try #require(c.plaintextSha256, "\(name): no plaintext_sha256").bytes
                #expect(plaintext.count == c.plaintextLength && SHA256.hash(plaintext) == expected, "\(name)")
            }
        }
        #expect(refusedCount >= 4)
        for layout in vector.layouts {
            let length = layout.length
            #expect(SealedDatabase.chunkCount(sealedLength: length).map(Int.init) == layout.chunks, "length \(length)")
        }
    }

    @Test("every damaged file of the vector is refused by the reader with corruptBackup")
    func damagedFilesAreRefused() throws {
        let cases = try Self.load().cases
        #expect(cases.count >= 15)
        for c in cases {
            #expect(try Self.refusal(c.file.bytes) == .corruptBackup, "\(c.name)")
        }
    }

    @Test("every single-bit change of every byte of the known file, and every truncation of it, is refused by the reader with corruptBackup")
    func everyByteAndEveryTruncation() throws {
        let file = try Self.load().file.bytes
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
