/// The vault database's core schema: the frozen migrations 1 to 13, tracked by `user_version`.
///
/// `PRAGMA application_id` marks a file as a vault database; `PRAGMA user_version` is the core schema
/// version. A database whose version is newer than `Schema.currentVersion` is refused, never
/// downgraded. Migration 13 is the last core migration: every later table or column is a named
/// migration of the module that owns it (`ModuleSchema`, applied and guarded by `VaultSchema`).
enum Schema {
    /// "VLT1" as a big-endian 32-bit integer.
    static let applicationID: Int64 = 0x564C_5431
    static var currentVersion: Int64 { Int64(coreMigrations.count) }
    /// The core version that made `module_migrations`; module migrations exist only from it on.
    static let moduleMigrationsVersion: Int64 = 13

    /// coreMigrations[i] upgrades version i to version i + 1. Frozen: never edited, never appended to.
    static let coreMigrations: [String] = [
        """
        CREATE TABLE vault_meta (
            key   TEXT PRIMARY KEY NOT NULL,
            value ANY NOT NULL
        ) STRICT;
        CREATE TABLE keyslots (
            id          INTEGER PRIMARY KEY,
            uuid        BLOB NOT NULL UNIQUE CHECK (length(uuid) = 16),
            kind        TEXT NOT NULL CHECK (kind IN ('passphrase', 'recovery-key', 'recovery-shares')),
            kdf         TEXT NOT NULL,
            salt        BLOB NOT NULL CHECK (length(salt) = 16),
            nonce       BLOB NOT NULL CHECK (length(nonce) = 24),
            wrapped_key BLOB NOT NULL CHECK (length(wrapped_key) = 48),
            threshold   INTEGER,
            share_count INTEGER,
            created_at  INTEGER NOT NULL,
            updated_at  INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE compartments (
            id           INTEGER PRIMARY KEY,
            uuid         BLOB NOT NULL UNIQUE CHECK (length(uuid) = 16),
            name_hash    BLOB UNIQUE,
            sealed_name  BLOB,
            register     TEXT NOT NULL,
            privileged   INTEGER NOT NULL CHECK (privileged IN (0, 1)),
            created_at   INTEGER NOT NULL,
            destroyed_at INTEGER
        ) STRICT;
        CREATE TABLE compartment_keys (
            compartment_id INTEGER NOT NULL REFERENCES compartments(id),
            version        INTEGER NOT NULL CHECK (version BETWEEN 1 AND 4294967295),
            salt           BLOB CHECK (salt IS NULL OR length(salt) = 32),
            created_at     INTEGER NOT NULL,
            retired_at     INTEGER,
            PRIMARY KEY (compartment_id, version),
            CHECK ((retired_at IS NULL) = (salt IS NOT NULL))
        ) STRICT;
        """,
        """
        CREATE TABLE bundles (
            id               INTEGER PRIMARY KEY,
            bundle_id        BLOB NOT NULL UNIQUE CHECK (length(bundle_id) = 16),
            compartment_id   INTEGER NOT NULL REFERENCES compartments(id),
            key_version      INTEGER NOT NULL CHECK (key_version BETWEEN 1 AND 4294967295),
            plaintext_length INTEGER NOT NULL CHECK (plaintext_length >= 0),
            sealed_length    INTEGER NOT NULL CHECK (sealed_length > 0),
            created_at       INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE operations (
            id               INTEGER PRIMARY KEY,
            time             INTEGER NOT NULL,
            action           TEXT NOT NULL CHECK (action IN ('seal', 'open', 'put', 'get', 'rm', 'rewrap')),
            compartment_uuid BLOB CHECK (compartment_uuid IS NULL OR length(compartment_uuid) = 16),
            bundle_id        BLOB CHECK (bundle_id IS NULL OR length(bundle_id) = 16),
            bytes            INTEGER
        ) STRICT;
        CREATE TRIGGER operations_are_append_only_update BEFORE UPDATE ON operations
            BEGIN SELECT RAISE(ABORT, 'operations are append-only'); END;
        CREATE TRIGGER operations_are_append_only_delete BEFORE DELETE ON operations
            BEGIN SELECT RAISE(ABORT, 'operations are append-only'); END;
        """,
        """
        INSERT INTO vault_meta (key, value) VALUES ('device_id', randomblob(16));
        CREATE TABLE audit_entries (
            seq       INTEGER PRIMARY KEY CHECK (seq >= 0),
            entry     BLOB NOT NULL,
            leaf_hash BLOB NOT NULL CHECK (length(leaf_hash) = 32)
        ) STRICT;
        CREATE TABLE audit_nodes (
            level INTEGER NOT NULL CHECK (level >= 1),
            idx   INTEGER NOT NULL CHECK (idx >= 0),
            hash  BLOB NOT NULL CHECK (length(hash) = 32),
            PRIMARY KEY (level, idx)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE audit_signing_keys (
            epoch        INTEGER PRIMARY KEY CHECK (epoch >= 0),
            public_key   BLOB NOT NULL CHECK (length(public_key) = 32),
            introduction TEXT,
            private_key  BLOB CHECK (private_key IS NULL OR length(private_key) = 32),
            created_at   INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE audit_checkpoints (
            id         INTEGER PRIMARY KEY,
            tree_size  INTEGER NOT NULL CHECK (tree_size >= 0),
            epoch      INTEGER NOT NULL REFERENCES audit_signing_keys(epoch),
            note       TEXT NOT NULL,
            created_at INTEGER NOT NULL
        ) STRICT;
        CREATE TRIGGER audit_entries_no_update BEFORE UPDATE ON audit_entries
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
        CREATE TRIGGER audit_entries_no_delete BEFORE DELETE ON audit_entries
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
        CREATE TRIGGER audit_nodes_no_update BEFORE UPDATE ON audit_nodes
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
        CREATE TRIGGER audit_nodes_no_delete BEFORE DELETE ON audit_nodes
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
        CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
            BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END;
        CREATE TRIGGER audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
            BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END;
        CREATE TRIGGER audit_signing_keys_no_delete BEFORE DELETE ON audit_signing_keys
            BEGIN SELECT RAISE(ABORT, 'the audit key chain is append-only'); END;
        CREATE TRIGGER audit_signing_keys_only_erase BEFORE UPDATE ON audit_signing_keys
            WHEN NEW.private_key IS NOT NULL OR NEW.epoch IS NOT OLD.epoch OR NEW.public_key IS NOT OLD.public_key
              OR NEW.introduction IS NOT OLD.introduction OR NEW.created_at IS NOT OLD.created_at
            BEGIN SELECT RAISE(ABORT, 'an audit signing key can only be erased'); END;
        """,
        // The audit log records every bundle operation (with its byte count as a detail), so the
        // separate table of them goes. Its triggers go with it; secure_delete zeroes its pages.
        """
        DROP TABLE operations;
        """,
        // Device identity and pairings (SECURITY.md §4.7).
        """
        CREATE TABLE device_identity (
            id                  INTEGER PRIMARY KEY CHECK (id = 1),
            device_id           BLOB NOT NULL CHECK (length(device_id) = 16),
            signing_public_key  BLOB NOT NULL CHECK (length(signing_public_key) = 32),
            noise_public_key    BLOB NOT NULL CHECK (length(noise_public_key) = 32),
            sealed_private_keys BLOB NOT NULL CHECK (length(sealed_private_keys) = 104),
            name                TEXT NOT NULL,
            created_at          INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE family_pairings (
            id                      INTEGER PRIMARY KEY,
            peer_device_id          BLOB NOT NULL UNIQUE CHECK (length(peer_device_id) = 16),
            peer_name               TEXT NOT NULL,
            peer_created_at         INTEGER NOT NULL,
            peer_signing_public_key BLOB NOT NULL CHECK (length(peer_signing_public_key) = 32),
            peer_noise_public_key   BLOB NOT NULL CHECK (length(peer_noise_public_key) = 32),
            role                    TEXT NOT NULL CHECK (role IN ('host', 'join')),
            paired_at               INTEGER NOT NULL
        ) STRICT;
        """,
        // audit_nodes keeps only subtrees of 16 leaves or more (SECURITY.md §8.4): the smaller ones
        // cost a row per entry and are recomputed from the leaf hashes. The table is rebuilt with the
        // tighter CHECK; dropping it drops its triggers, which are then made again.
        """
        CREATE TABLE audit_nodes_from_level_4 (
            level INTEGER NOT NULL CHECK (level >= 4),
            idx   INTEGER NOT NULL CHECK (idx >= 0),
            hash  BLOB NOT NULL CHECK (length(hash) = 32),
            PRIMARY KEY (level, idx)
        ) STRICT, WITHOUT ROWID;
        INSERT INTO audit_nodes_from_level_4 (level, idx, hash) SELECT level, idx, hash FROM audit_nodes WHERE level >= 4;
        DROP TABLE audit_nodes;
        ALTER TABLE audit_nodes_from_level_4 RENAME TO audit_nodes;
        CREATE TRIGGER audit_nodes_no_update BEFORE UPDATE ON audit_nodes
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
        CREATE TRIGGER audit_nodes_no_delete BEFORE DELETE ON audit_nodes
            BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
        """,
        // The leak guard's keyed fingerprints of privileged documents (SECURITY.md §11.7): 64-bit
        // values stored as SQLite's signed integers, bit for bit.
        """
        CREATE TABLE leak_fingerprints (fingerprint INTEGER PRIMARY KEY) STRICT;
        """,
        // Replicas of paired devices' bundles (SECURITY.md §9.13): ciphertext this vault keeps for a
        // peer and cannot open, one row per (source device, bundle); the bytes are in replicas/.
        // `received` counts the bytes durably in the file; it reaches `length` only once the whole
        // bundle verified, which is when `completed_at` is set.
        """
        CREATE TABLE replicas (
            source_device_id BLOB NOT NULL CHECK (length(source_device_id) = 16),
            bundle_id        BLOB NOT NULL CHECK (length(bundle_id) = 16),
            vault_id         BLOB NOT NULL CHECK (length(vault_id) = 16),
            length           INTEGER NOT NULL CHECK (length > 0),
            sha256           BLOB NOT NULL CHECK (length(sha256) = 32),
            received         INTEGER NOT NULL CHECK (received BETWEEN 0 AND length),
            announced_at     INTEGER NOT NULL,
            completed_at     INTEGER,
            PRIMARY KEY (source_device_id, bundle_id),
            CHECK ((completed_at IS NOT NULL) = (received = length))
        ) STRICT, WITHOUT ROWID;
        """,
        // Witnessing (SECURITY.md §9.11): as a witness, the latest checkpoint cosigned for each
        // paired device and the log identity pinned at the first; as a log, every cosignature received.
        """
        CREATE TABLE witnessed_logs (
            peer_device_id     BLOB PRIMARY KEY NOT NULL CHECK (length(peer_device_id) = 16),
            origin             TEXT NOT NULL,
            genesis_public_key BLOB NOT NULL CHECK (length(genesis_public_key) = 32),
            epoch              INTEGER NOT NULL CHECK (epoch >= 0),
            epoch_public_key   BLOB NOT NULL CHECK (length(epoch_public_key) = 32),
            tree_size          INTEGER NOT NULL CHECK (tree_size >= 0),
            root_hash          BLOB NOT NULL CHECK (length(root_hash) = 32),
            cosigned_note      TEXT NOT NULL,
            cosigned_at        INTEGER NOT NULL CHECK (cosigned_at >= 0)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE audit_cosignatures (
            id                 INTEGER PRIMARY KEY,
            witness_device_id  BLOB NOT NULL CHECK (length(witness_device_id) = 16),
            witness_public_key BLOB NOT NULL CHECK (length(witness_public_key) = 32),
            epoch              INTEGER NOT NULL CHECK (epoch >= 0),
            tree_size          INTEGER NOT NULL CHECK (tree_size >= 0),
            cosigned_note      TEXT NOT NULL,
            cosigned_at        INTEGER NOT NULL CHECK (cosigned_at >= 0)
        ) STRICT;
        CREATE INDEX audit_cosignatures_by_witness ON audit_cosignatures (witness_device_id, id);
        """,
        // Migration 10: compartments
        // other vaults shared with this device (SECURITY.md §9, "Sharing compartments"). A name is
        // sealed and hashed as a compartment's is (§4.6); each key version is sealed under MK.
        """
        CREATE TABLE shared_compartments (
            id               INTEGER PRIMARY KEY,
            source_vault_id  BLOB NOT NULL CHECK (length(source_vault_id) = 16),
            compartment_id   BLOB NOT NULL CHECK (length(compartment_id) = 16),
            name_hash        BLOB NOT NULL UNIQUE CHECK (length(name_hash) = 32),
            sealed_name      BLOB NOT NULL,
            role             TEXT NOT NULL CHECK (role IN ('viewer', 'editor')),
            sender_device_id BLOB NOT NULL CHECK (length(sender_device_id) = 16),
            granted_at       INTEGER NOT NULL,
            received_at      INTEGER NOT NULL,
            UNIQUE (source_vault_id, compartment_id)
        ) STRICT;
        CREATE TABLE shared_compartment_keys (
            shared_compartment_id INTEGER NOT NULL REFERENCES shared_compartments(id),
            version               INTEGER NOT NULL CHECK (version BETWEEN 1 AND 4294967295),
            sealed_key            BLOB NOT NULL CHECK (length(sealed_key) = 72),
            PRIMARY KEY (shared_compartment_id, version)
        ) STRICT;
        """,
        // Migration 11: the leak guard's fingerprint format version 2
        // (SECURITY.md §11.3, §11.7) is keyed from another HKDF label, so a value stored before it
        // can never match again. It once deleted every row; it no longer touches them, because a
        // lowered user_version made it run again on a vault of version 11 and delete every version 2
        // fingerprint. A version 1 value left in place is inert (a 64-bit value that no shingle of
        // version 2 hashes to but by chance).
        """
        SELECT 1;
        """,
        // Migration 12: a compartment's clear `privileged`, `register` and `name_hash` are bound to
        // it by a MAC under a key derived from MK (SECURITY.md §4.6). Rows made before it have none
        // until the first unlock binds them (and records each binding in the audit log).
        """
        ALTER TABLE compartments ADD COLUMN binding BLOB CHECK (binding IS NULL OR length(binding) = 32);
        """,
        // Migration 13, the last core one: the record of each module's named migrations applied
        // (SECURITY.md §4.1.1). Append-only, as the audit log is: an applied migration is never undone.
        """
        CREATE TABLE module_migrations (
            id         INTEGER PRIMARY KEY,
            module     TEXT NOT NULL CHECK (length(module) > 0),
            name       TEXT NOT NULL CHECK (length(name) > 0),
            applied_at INTEGER NOT NULL,
            UNIQUE (module, name)
        ) STRICT;
        CREATE TRIGGER module_migrations_no_update BEFORE UPDATE ON module_migrations
            BEGIN SELECT RAISE(ABORT, 'applied migrations are append-only'); END;
        CREATE TRIGGER module_migrations_no_delete BEFORE DELETE ON module_migrations
            BEGIN SELECT RAISE(ABORT, 'applied migrations are append-only'); END;
        """,
    ]

    /// Sets the connection's durability and safety options. Called on every open.
    static func configure(_ database: Database) throws {
        // WAL: readers see a consistent snapshot while one writer commits. FULL: a commit is on disk
        // when it returns. secure_delete: deleted rows (a shredded salt) are overwritten with zeros.
        _ = try database.query("PRAGMA journal_mode = WAL")
        try database.execute("""
            PRAGMA synchronous = FULL;
            PRAGMA secure_delete = ON;
            PRAGMA foreign_keys = ON;
            PRAGMA trusted_schema = OFF;
            """)
    }

    static func version(of database: Database) throws -> (applicationID: Int64, userVersion: Int64) {
        let application = try database.queryOne("PRAGMA application_id")?.integer("application_id") ?? 0
        let user = try database.queryOne("PRAGMA user_version")?.integer("user_version") ?? 0
        return (application, user)
    }

    /// Each table and each of its columns ("compartments" and "compartments.binding"): a migration
    /// may add a column rather than a table, and re-running it on a lowered version must be caught too.
    static func tables(of database: Database) throws -> Set<String> {
        let tables = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").map { try $0.text("name") }
        let columns = try database.query("""
            SELECT m.name || '.' || c.name AS name FROM sqlite_master AS m, pragma_table_info(m.name) AS c
            WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
            """).map { try $0.text("name") }
        return Set(tables + columns)
    }

    /// A vault at the current core version that lacks a module migration this binary has.
    static func pendingModuleMigrationError(module: String, name: String) -> CryptoVaultError {
        CryptoVaultError(.olderSchema, """
            this vault lacks the migration '\(name)' of module '\(module)' that this vaultctl has; a read-only command \
            does not upgrade it: run a write command (for example 'vaultctl unlock') to upgrade it
            """)
    }

    static func olderSchemaError(_ found: Int64) -> CryptoVaultError {
        CryptoVaultError(.olderSchema, """
            this vault uses schema version \(found), older than this vaultctl's (\(currentVersion)); a read-only command \
            does not upgrade it: run a write command (for example 'vaultctl unlock') to upgrade it
            """)
    }

    static func newerSchemaError(_ found: Int64) -> CryptoVaultError {
        CryptoVaultError(.newerSchema,
            "this vault uses schema version \(found), newer than this vaultctl supports (\(currentVersion)); upgrade vaultctl")
    }
}
