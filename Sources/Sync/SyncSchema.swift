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
        // An open editor's hold on a document (SECURITY.md §19.5, §19.9; attack review s6, P5): the
        // document, its project, the parts of its sealed base (`HeldBases`) and when the hold began.
        NamedMigration("held-1", """
            CREATE TABLE sync_held_documents (
                document_id BLOB PRIMARY KEY CHECK (length(document_id) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                parts INTEGER NOT NULL CHECK (parts >= 1),
                held_at INTEGER NOT NULL
            );
            CREATE INDEX sync_held_documents_by_project ON sync_held_documents (project_id);
            """),
        // What the records of a project show that this vault's store leaves out because another
        // project here holds the id (SECURITY.md §19.5; review s8 F1): kind 'node', 'block' or
        // 'entry', and the id. A commit never takes what is listed here for the owner's removal.
        NamedMigration("left-out-1", """
            CREATE TABLE sync_left_out (
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                kind TEXT NOT NULL CHECK (kind IN ('node', 'block', 'entry')),
                id BLOB NOT NULL CHECK (length(id) = 16),
                PRIMARY KEY (project_id, kind, id)
            );
            """),
        // How far this device's own records of a project went, when a repair lacked some (SECURITY.md
        // §19.10; review 17 s8, F14): nothing is committed there until they are back (`OwnRecordFloor`).
        NamedMigration("own-floor-1", """
            CREATE TABLE sync_own_floors (
                project_id BLOB PRIMARY KEY CHECK (length(project_id) = 16),
                counter INTEGER NOT NULL CHECK (counter >= 1),
                set_at INTEGER NOT NULL
            );
            """),
        // This device's records of a project its origin refused after making this device a viewer,
        // set aside as signed (SECURITY.md §19.5, session 13): out of the replica, the version vector
        // and every push until the origin makes this device an editor again (`VaultSync+SetAside`).
        NamedMigration("set-aside-1", """
            CREATE TABLE sync_set_aside (
                hash BLOB PRIMARY KEY CHECK (length(hash) = 32),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                counter INTEGER NOT NULL CHECK (counter >= 1),
                lamport INTEGER NOT NULL CHECK (lamport >= 1),
                parts INTEGER NOT NULL CHECK (parts >= 1),
                stored_at INTEGER NOT NULL,
                refused_by BLOB NOT NULL CHECK (length(refused_by) = 16),
                set_at INTEGER NOT NULL
            );
            CREATE INDEX sync_set_aside_by_project ON sync_set_aside (project_id);
            """),
        // The devices a restored or recovered vault's project still waits for (SECURITY.md §19.5,
        // §19.10; review 17 s12, N-s12-3; reviewer 13, N-s13-3): `RestoreWaits`. kind 'own' (an own
        // device), 'shared' (someone else's, the project shared with it or from it), 'any-own'
        // (device id all zero: any own device; the backup trusted none).
        NamedMigration("restore-wait-1", """
            CREATE TABLE sync_restore_waits (
                project_id BLOB NOT NULL CHECK (length(project_id) = 16),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                kind TEXT NOT NULL CHECK (kind IN ('own', 'shared', 'any-own')),
                set_at INTEGER NOT NULL,
                PRIMARY KEY (project_id, device_id)
            );
            """),
        // The records SECURITY.md §19.4's fork rule left out of a project's replica, each with the device
        // that forked (its sealed parts where a stored record's are): a replica made again knows every
        // copy the walk weighed (`VaultSync+ForkLeftOut`; reviewer 13's fk3, session 14).
        NamedMigration("fork-rule-1", """
            CREATE TABLE sync_fork_left_out (
                hash BLOB PRIMARY KEY CHECK (length(hash) = 32),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                counter INTEGER NOT NULL CHECK (counter >= 1),
                parts INTEGER NOT NULL CHECK (parts >= 1),
                forked_by BLOB NOT NULL CHECK (length(forked_by) = 16),
                left_at INTEGER NOT NULL
            );
            CREATE INDEX sync_fork_left_out_by_project ON sync_fork_left_out (project_id);
            """),
    ])
}
