@testable import CryptoVault
import Foundation

/// A version 2 backup made as an older vaultctl made it of a vault never paired: without a device
/// identity (`init` made none then, and `backup` did not make one; review 17 s12, N-s12-2 (b)). No
/// vaultctl of today writes one, so a test takes a backup of today apart, opens its sealed database
/// with the passphrase, removes the identity and seals it again to the vault's backup key (the
/// public record does not cover the identity, so the file still checks).
enum OlderBackupFile {
    static func droppingDeviceIdentity(_ path: String, passphrase: String) throws {
        var file = try BackupFileEditor(path: path)
        precondition(file.version == 2 && file.records.count >= 2 && file.records[1].kind == 4, "a version 2 backup")
        let vaultID = try VaultID(bytes: file.vaultID)
        let scratch = NSTemporaryDirectory() + "older-backup-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let publicPath = scratch + "/public.db", sealedPath = scratch + "/sealed", databasePath = scratch + "/vault.db"
        try Data(file.records[0].data).write(to: URL(fileURLWithPath: publicPath))
        try Data(file.records[1].data).write(to: URL(fileURLWithPath: sealedPath))
        let key = try BackupPublicRecord.backupKey(from: try BackupPublicRecord.open(publicPath, vaultID: vaultID),
                                                   credential: .passphrase(try SecureBytes(copying: Array(passphrase.utf8))), vaultID: vaultID)
        try SealedDatabase.open(sealedPath, into: databasePath, with: key, vaultID: vaultID, durable: false)
        do {
            let database = try Database(path: databasePath, create: false)
            try database.query("DELETE FROM device_identity")
            _ = try database.query("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        guard let size = try FileManager.default.attributesOfItem(atPath: databasePath)[.size] as? NSNumber else {
            throw CocoaError(.fileReadUnknown)
        }
        let length = size.uint64Value
        var sealed: [UInt8] = []
        try SealedDatabase.seal(try FileDescriptor.openForReading(databasePath), length: length, to: key.publicKey, vaultID: vaultID) {
            sealed.append(contentsOf: $0)
        }
        file.records[1].data = sealed
        try file.write(to: path)
    }
}
