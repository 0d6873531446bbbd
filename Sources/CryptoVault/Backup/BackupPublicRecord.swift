import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The clear record of a version 2 backup (SECURITY.md §13.2): an SQLite database of exactly the
/// tables below, holding what is public by design, so that the file can be checked without any key:
/// the audit log (entries, signing *public* keys, checkpoints, cosignatures; never a private seed),
/// the keyslots (the master key wrapped under each credential, as a LUKS header is), and the
/// backup key (public, and private sealed under the master key). Everything else of the vault
/// (names, compartments, device and pairing keys, the audit signing seed) is only in the sealed
/// database record.
public enum BackupPublicRecord {
    /// The `backup_meta` rows, each copied from `vault_meta`.
    static let metaKeys = ["vault_id", BackupKey.publicKeyName, BackupKey.sealedKeyName]

    /// Builds the record at `path` (a new file) from the database snapshot at `snapshotPath`.
    static func build(at path: String, from snapshotPath: String) throws {
        let database = try Database(path: path, create: true)
        try database.execute("PRAGMA journal_mode = DELETE; PRAGMA trusted_schema = OFF")
        try database.query("ATTACH DATABASE ? AS source", [.text(snapshotPath)])
        try database.writeTransaction {
            for table in tables {
                try database.execute(table.sql)
                guard !table.source.isEmpty else { continue }
                try database.execute("INSERT INTO main.\(table.name) (\(table.columns)) SELECT \(table.columns) FROM source.\(table.source)")
            }
            for key in metaKeys {
                try database.query("INSERT INTO backup_meta (key, value) SELECT key, value FROM source.vault_meta WHERE key = ?", [.text(key)])
            }
        }
        try database.execute("DETACH DATABASE source")
        let descriptor = try FileDescriptor.openForReading(path)
        try descriptor.sync()
    }

    /// Opens an extracted record read-only, refusing anything but exactly the schema above (no view,
    /// no trigger, no other table: a hostile file must not run code when it is read) and a
    /// `backup_meta` whose vault id is the header's and whose keys have their sizes.
    package static func open(_ path: String, vaultID: VaultID) throws -> Database {
        let database: Database
        do {
            database = try Database(path: path, create: false, readOnly: true)
            try database.execute("PRAGMA trusted_schema = OFF")
            guard try database.queryOne("PRAGMA quick_check")?.text("quick_check") == "ok" else {
                throw BackupReader.corrupt("its public record is a damaged SQLite database")
            }
        } catch let error as CryptoVaultError where error.code == .database {
            throw BackupReader.corrupt("its public record is not an SQLite database")
        }
        let schema = try database.query("SELECT type, name, sql FROM sqlite_master ORDER BY name")
        let wanted = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0.sql) })
        var found: Set<String> = []
        for row in schema {
            let type = try row.text("type"), name = try row.text("name")
            if type == "index", name.hasPrefix("sqlite_autoindex_"), row["sql"] == .null { continue }
            guard type == "table", let sql = wanted[name], row["sql"] == .text(sql) else {
                throw BackupReader.corrupt("its public record holds \(type) \(name), which is not in its schema")
            }
            found.insert(name)
        }
        guard found.count == tables.count else { throw BackupReader.corrupt("its public record lacks a table of its schema") }
        let meta = try self.meta(database)
        guard meta["vault_id"] == vaultID.bytes else { throw BackupReader.corrupt("its public record names another vault than its header") }
        guard meta[BackupKey.publicKeyName]?.count == X25519PrivateKey.keySize, meta[BackupKey.sealedKeyName]?.count == BackupKey.sealedKeySize else {
            throw BackupReader.corrupt("its public record has no well-formed backup key")
        }
        return database
    }

    static func meta(_ database: Database) throws -> [String: [UInt8]] {
        var meta: [String: [UInt8]] = [:]
        for row in try database.query("SELECT key, value FROM backup_meta") {
            guard case .blob(let value) = row["value"] else { throw BackupReader.corrupt("its public record's backup_meta holds a value that is not bytes") }
            meta[try row.text("key")] = value
        }
        guard Set(meta.keys) == Set(metaKeys) else { throw BackupReader.corrupt("its public record's backup_meta has other keys than \(metaKeys)") }
        return meta
    }

    /// The master key, from the record's keyslots and `credential`, exactly as unlocking the vault
    /// would find it (every slot of the kind is tried).
    package static func masterKey(from database: Database, credential: UnlockCredential, vaultID: VaultID) throws -> SecureBytes {
        let slots = try Vault.readableKeyslots(in: database).slots
        func first(_ kind: Keyslot.Kind, _ kek: (Keyslot) throws -> SecureBytes) throws -> SecureBytes? {
            var opened: SecureBytes?
            for slot in slots where slot.kind == kind {
                if let key = try? slot.unwrap(with: try kek(slot), vaultID: vaultID), opened == nil { opened = key }
            }
            return opened
        }
        switch credential {
        case .passphrase(let passphrase):
            let key = try first(.passphrase) { slot in
                guard case .passwordHash(let parameters) = slot.kdf else { throw CryptoVaultError(.corruptBackup, "a passphrase slot has no password hash") }
                return try KeyHierarchy.passphraseKEK(passphrase, salt: slot.salt, parameters: parameters, vaultID: vaultID)
            }
            guard let key else { throw CryptoVaultError(.wrongPassphrase, "wrong passphrase (for this backup)") }
            return key
        case .recoveryKey(let recoveryKey):
            let key = try first(.recoveryKey) { try Vault.kek(forHighEntropySecret: recoveryKey.keyMaterial, slot: $0, vaultID: vaultID, info: KeyHierarchy.recoveryKeyInfo) }
            guard let key else { throw CryptoVaultError(.wrongRecoveryKey, "the recovery key does not unlock this backup") }
            return key
        case .recoveryShares(let shares):
            let secret = try RecoveryShareFile.combine(shares, vaultID: vaultID)
            let key = try first(.recoveryShares) { slot in
                guard slot.uuid == shares[0].keyslotUUID else { throw CryptoVaultError(.wrongRecoveryKey, "not this split") }
                return try Vault.kek(forHighEntropySecret: secret, slot: slot, vaultID: vaultID, info: KeyHierarchy.recoverySharesInfo)
            }
            guard let key else { throw CryptoVaultError(.wrongRecoveryKey, "the shares do not unlock this backup") }
            return key
        }
    }

    /// The backup private key, opened with `credential`.
    package static func backupKey(from database: Database, credential: UnlockCredential, vaultID: VaultID) throws -> X25519PrivateKey {
        let meta = try self.meta(database)
        let masterKey = try masterKey(from: database, credential: credential, vaultID: vaultID)
        return try BackupKey.open(meta[BackupKey.sealedKeyName] ?? [], publicKey: meta[BackupKey.publicKeyName] ?? [],
                                  masterKey: masterKey, vaultID: vaultID)
    }

    /// Checks that the decrypted database says exactly what the public record says: the same
    /// keyslots, audit entries, signing public keys, checkpoints, cosignatures and backup key.
    /// Without this, the clear record checked keylessly could tell a different story than the vault.
    package static func checkAgreement(_ record: Database, with vault: Vault) throws {
        try vault.read { database in try checkAgreement(record, with: database) }
    }

    /// The same check on the decrypted database itself, before it is opened as a vault (a backup of
    /// an older schema is checked so before its copy is upgraded).
    package static func checkAgreement(_ record: Database, with database: Database) throws {
        for table in tables where !table.source.isEmpty {
            let query = "SELECT \(table.columns) FROM \(table.source)"
            let columns = table.columns.components(separatedBy: ", ")
            guard try digest(query, columns: columns, in: record) == digest(query, columns: columns, in: database) else {
                throw BackupReader.corrupt("its public record's \(table.name) differs from its database's (altered)")
            }
        }
        for key in metaKeys {
            let inVault = try BackupKey.metaBlob(key, in: database)
            guard let inVault, try self.meta(record)[key] == inVault else {
                throw BackupReader.corrupt("its public record's \(key) differs from its database's (altered)")
            }
        }
    }

    /// A SHA-256 over every value of every row, each tagged with its type and length.
    static func digest(_ query: String, columns: [String], in database: Database) throws -> [UInt8] {
        var hasher = SHA256.Hasher()
        try database.forEachRow(query) { row in
            for column in columns {
                switch row[column] {
                case .null: hasher.update([0])
                case .integer(let value): hasher.update([1] + BackupFormat.bigEndian(UInt64(bitPattern: value), width: 8))
                case .text(let text): hasher.update([2] + BackupFormat.bigEndian(UInt64(text.utf8.count), width: 8) + Array(text.utf8))
                case .blob(let bytes): hasher.update([3] + BackupFormat.bigEndian(UInt64(bytes.count), width: 8) + bytes)
                }
            }
        }
        return hasher.finalize()
    }
}
