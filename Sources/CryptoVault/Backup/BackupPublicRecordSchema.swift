/// The schema of a backup's public record (SECURITY.md §13.2), a database of its own: `backup_meta`,
/// and a column-for-column copy of each public table of the vault, made from the snapshot by
/// `BackupPublicRecord.build` and compared with the vault by `checkAgreement`. Like the vault's
/// schema files it only makes tables, so OwnedSQLGuardTests does not count it as a reach into the
/// vault's tables of the same names.
extension BackupPublicRecord {
    /// The schema, statement by statement, as `sqlite_master` must hold it (checked on reading).
    static let tables: [(name: String, sql: String, columns: String, source: String)] = [
        ("backup_meta", "CREATE TABLE backup_meta (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) STRICT",
         "key, value", ""),
        ("keyslots", """
            CREATE TABLE keyslots (id INTEGER PRIMARY KEY, uuid BLOB NOT NULL, kind TEXT NOT NULL, kdf TEXT NOT NULL, \
            salt BLOB NOT NULL, nonce BLOB NOT NULL, wrapped_key BLOB NOT NULL, threshold INTEGER, share_count INTEGER, \
            created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL) STRICT
            """, "id, uuid, kind, kdf, salt, nonce, wrapped_key, threshold, share_count, created_at, updated_at", "keyslots ORDER BY id"),
        ("audit_entries", "CREATE TABLE audit_entries (seq INTEGER PRIMARY KEY, entry BLOB NOT NULL, leaf_hash BLOB NOT NULL) STRICT",
         "seq, entry, leaf_hash", "audit_entries ORDER BY seq"),
        ("audit_signing_keys", """
            CREATE TABLE audit_signing_keys (epoch INTEGER PRIMARY KEY, public_key BLOB NOT NULL, introduction TEXT, \
            created_at INTEGER NOT NULL) STRICT
            """, "epoch, public_key, introduction, created_at", "audit_signing_keys ORDER BY epoch"),
        ("audit_checkpoints", """
            CREATE TABLE audit_checkpoints (id INTEGER PRIMARY KEY, tree_size INTEGER NOT NULL, epoch INTEGER NOT NULL, \
            note TEXT NOT NULL, created_at INTEGER NOT NULL) STRICT
            """, "id, tree_size, epoch, note, created_at", "audit_checkpoints ORDER BY id"),
        ("audit_cosignatures", """
            CREATE TABLE audit_cosignatures (id INTEGER PRIMARY KEY, witness_device_id BLOB NOT NULL, \
            witness_public_key BLOB NOT NULL, epoch INTEGER NOT NULL, tree_size INTEGER NOT NULL, \
            cosigned_note TEXT NOT NULL, cosigned_at INTEGER NOT NULL) STRICT
            """, "id, witness_device_id, witness_public_key, epoch, tree_size, cosigned_note, cosigned_at", "audit_cosignatures ORDER BY id"),
    ]
}
