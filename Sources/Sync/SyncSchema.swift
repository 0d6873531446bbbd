import CryptoVault

/// Sync's tables (SECURITY.md §19.5), one named list of migrations, append only. Clear columns hold
/// only hashes, ids, counters and times; each change record itself is sealed in its project's
/// compartment (module `sync`, table `sync_records`, the record's hash, fields `part-N`).
public enum SyncSchema {
    public static let module = ModuleSchema(module: "sync", migrations: [
        NamedMigration("records-1", """
            CREATE TABLE sync_records (
                hash BLOB PRIMARY KEY CHECK (length(hash) = 32),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                counter INTEGER NOT NULL CHECK (counter >= 1),
                lamport INTEGER NOT NULL CHECK (lamport >= 1),
                parts INTEGER NOT NULL CHECK (parts >= 1),
                stored_at INTEGER NOT NULL,
                UNIQUE (project_id, device_id, counter)
            );
            CREATE INDEX sync_records_by_project ON sync_records (project_id);
            CREATE TABLE sync_conflict_branches (
                conflict BLOB PRIMARY KEY CHECK (length(conflict) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                branch_id BLOB NOT NULL CHECK (length(branch_id) = 16)
            );
            """),
    ])
}
