import CryptoVault

/// The writing model's tables, as one named list of migrations (SECURITY.md §4.1.1). Append only:
/// a migration that has landed is never edited, renamed or reordered; the next one goes at the end,
/// whichever part of the writing model (the binder, versions, edit events) it is for.
public enum WritingSchema {
    public static let module = ModuleSchema(module: "writing", migrations: [
        // The model (SECURITY.md §14.2): projects, the binder, blocks and entries. Clear columns hold
        // only ids, order, kinds, parent links and times; every name, title and text is a sealed record.
        NamedMigration("model-1", """
            CREATE TABLE writing_projects (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                compartment_uuid BLOB NOT NULL UNIQUE CHECK (length(compartment_uuid) = 16),
                register TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('document', 'long-form')),
                created_at INTEGER NOT NULL,
                archived_at INTEGER
            );
            CREATE TABLE writing_nodes (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                parent_id BLOB REFERENCES writing_nodes(id),
                kind TEXT NOT NULL CHECK (kind IN ('chapter', 'scene')),
                order_key TEXT NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX writing_nodes_by_project ON writing_nodes (project_id, parent_id, order_key);
            CREATE TABLE writing_blocks (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                node_id BLOB NOT NULL REFERENCES writing_nodes(id),
                position INTEGER NOT NULL CHECK (position >= 0),
                kind TEXT NOT NULL
            );
            CREATE INDEX writing_blocks_by_node ON writing_blocks (node_id, position);
            CREATE TABLE writing_entries (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                kind TEXT NOT NULL CHECK (kind IN ('character', 'place', 'plot-beat', 'snippet')),
                order_key TEXT NOT NULL,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX writing_entries_by_project ON writing_entries (project_id, kind, order_key);
            """),
        // Versions (SECURITY.md §15.2): each document's snapshots, numbered from 1, a keyframe at the
        // start of each chain (`WritingStore.chainLimit`). Clear columns hold ids, numbers, forms and times; the
        // content, its digest and a title are sealed.
        NamedMigration("versions-1", """
            CREATE TABLE writing_snapshots (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                node_id BLOB NOT NULL REFERENCES writing_nodes(id),
                sequence INTEGER NOT NULL CHECK (sequence >= 1),
                form TEXT NOT NULL CHECK (form IN ('keyframe', 'delta')),
                origin TEXT NOT NULL CHECK (origin IN ('automatic', 'titled', 'restore')),
                parts INTEGER NOT NULL CHECK (parts >= 1),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                created_at INTEGER NOT NULL,
                UNIQUE (node_id, sequence)
            );
            """),
        // Branches (SECURITY.md §15.3). SQLite cannot widen a CHECK, so writing_snapshots is rebuilt
        // with the origins adopt and revert added, its rows copied as they are. Clear columns of
        // writing_branches hold ids, the kind, the state and times; provenance and content are sealed.
        NamedMigration("versions-2", """
            ALTER TABLE writing_snapshots RENAME TO writing_snapshots_v1;
            CREATE TABLE writing_snapshots (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                node_id BLOB NOT NULL REFERENCES writing_nodes(id),
                sequence INTEGER NOT NULL CHECK (sequence >= 1),
                form TEXT NOT NULL CHECK (form IN ('keyframe', 'delta')),
                origin TEXT NOT NULL CHECK (origin IN ('automatic', 'titled', 'restore', 'adopt', 'revert')),
                parts INTEGER NOT NULL CHECK (parts >= 1),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                created_at INTEGER NOT NULL,
                UNIQUE (node_id, sequence)
            );
            INSERT INTO writing_snapshots (id, project_id, node_id, sequence, form, origin, parts, device_id, created_at)
                SELECT id, project_id, node_id, sequence, form, origin, parts, device_id, created_at FROM writing_snapshots_v1;
            DROP TABLE writing_snapshots_v1;
            CREATE TABLE writing_branches (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                node_id BLOB NOT NULL REFERENCES writing_nodes(id),
                base_snapshot_id BLOB NOT NULL REFERENCES writing_snapshots(id),
                kind TEXT NOT NULL CHECK (kind IN ('ai-suggestion', 'research-insert', 'sync-conflict', 'manual')),
                state TEXT NOT NULL CHECK (state IN ('open', 'adopted', 'discarded', 'reverted')),
                parts INTEGER NOT NULL CHECK (parts >= 1),
                created_at INTEGER NOT NULL,
                decided_at INTEGER,
                before_snapshot_id BLOB REFERENCES writing_snapshots(id),
                adopted_snapshot_id BLOB REFERENCES writing_snapshots(id)
            );
            CREATE INDEX writing_branches_by_node ON writing_branches (node_id, created_at);
            """),
        // Edit events (SECURITY.md §15.5): one row per writing session per device. Clear columns hold
        // ids, the device and times; the documents edited and their word changes are sealed.
        NamedMigration("events-1", """
            CREATE TABLE writing_edit_events (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                started_at INTEGER NOT NULL,
                last_edit_at INTEGER NOT NULL,
                ended_at INTEGER,
                edits INTEGER NOT NULL CHECK (edits >= 1)
            );
            CREATE INDEX writing_edit_events_by_device ON writing_edit_events (project_id, device_id, ended_at);
            """),
        // Project snapshots (SECURITY.md §15.2): a whole project's versions, numbered from 1. Clear
        // columns hold ids, numbers, the origin and times; the binder, titles and the document
        // versions it links are sealed.
        NamedMigration("versions-3", """
            CREATE TABLE writing_project_snapshots (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                sequence INTEGER NOT NULL CHECK (sequence >= 1),
                origin TEXT NOT NULL CHECK (origin IN ('automatic', 'titled', 'restore')),
                parts INTEGER NOT NULL CHECK (parts >= 1),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                created_at INTEGER NOT NULL,
                UNIQUE (project_id, sequence)
            );
            """),
        // A discarded branch is a version too (SECURITY.md §15.3): writing_snapshots is rebuilt with the
        // origin discard added, its rows copied as they are. writing_branches refers to it now, so the
        // rows are copied aside (a temporary table: ids, numbers and times only, as the table holds),
        // the table dropped and made again under its own name (the references name it, and renaming
        // a table would rewrite them), with the foreign keys checked at commit.
        NamedMigration("versions-4", """
            PRAGMA defer_foreign_keys = ON;
            CREATE TEMP TABLE writing_snapshots_v3 AS SELECT * FROM writing_snapshots;
            DROP TABLE writing_snapshots;
            CREATE TABLE writing_snapshots (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                node_id BLOB NOT NULL REFERENCES writing_nodes(id),
                sequence INTEGER NOT NULL CHECK (sequence >= 1),
                form TEXT NOT NULL CHECK (form IN ('keyframe', 'delta')),
                origin TEXT NOT NULL CHECK (origin IN ('automatic', 'titled', 'restore', 'adopt', 'revert', 'discard')),
                parts INTEGER NOT NULL CHECK (parts >= 1),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                created_at INTEGER NOT NULL,
                UNIQUE (node_id, sequence)
            );
            INSERT INTO writing_snapshots (id, project_id, node_id, sequence, form, origin, parts, device_id, created_at)
                SELECT id, project_id, node_id, sequence, form, origin, parts, device_id, created_at FROM writing_snapshots_v3;
            DROP TABLE writing_snapshots_v3;
            """),
        // Automatic snapshots (SECURITY.md §15.2): per project and device, the document being edited and
        // the counters of AutoSnapshotPolicy, kept between processes. Clear: ids, a sequence, times and
        // counts (node_id has no reference: a removed document's row names nothing until the next edit).
        NamedMigration("versions-5", """
            CREATE TABLE writing_auto_snapshots (
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                node_id BLOB NOT NULL CHECK (length(node_id) = 16),
                sequence INTEGER NOT NULL CHECK (sequence >= 0),
                last_edit_ms INTEGER,
                active_ms INTEGER NOT NULL CHECK (active_ms >= 0),
                characters INTEGER NOT NULL CHECK (characters >= 0),
                edits INTEGER NOT NULL CHECK (edits >= 0),
                PRIMARY KEY (project_id, device_id)
            );
            """),
        // Snapshot groups (SECURITY.md §15.2): a group's first member holds the deltas of up to 64
        // snapshots in one sealed record, the others ('grouped') hold none (parts 0). writing_snapshots
        // is rebuilt with the two forms added, its rows copied as they are, as versions-4 did.
        NamedMigration("versions-6", """
            PRAGMA defer_foreign_keys = ON;
            CREATE TEMP TABLE writing_snapshots_v5 AS SELECT * FROM writing_snapshots;
            DROP TABLE writing_snapshots;
            CREATE TABLE writing_snapshots (
                id BLOB PRIMARY KEY CHECK (length(id) = 16),
                project_id BLOB NOT NULL REFERENCES writing_projects(id),
                node_id BLOB NOT NULL REFERENCES writing_nodes(id),
                sequence INTEGER NOT NULL CHECK (sequence >= 1),
                form TEXT NOT NULL CHECK (form IN ('keyframe', 'delta', 'group', 'grouped')),
                origin TEXT NOT NULL CHECK (origin IN ('automatic', 'titled', 'restore', 'adopt', 'revert', 'discard')),
                parts INTEGER NOT NULL CHECK ((form = 'grouped' AND parts = 0) OR (form <> 'grouped' AND parts >= 1)),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                created_at INTEGER NOT NULL,
                UNIQUE (node_id, sequence)
            );
            INSERT INTO writing_snapshots (id, project_id, node_id, sequence, form, origin, parts, device_id, created_at)
                SELECT id, project_id, node_id, sequence, form, origin, parts, device_id, created_at FROM writing_snapshots_v5;
            DROP TABLE writing_snapshots_v5;
            """),
        // A project shared with this device to view only (SECURITY.md §14.2, §19.9): its owner refuses
        // what this device would change, so the store refuses it first. Clear: a flag, set by sync.
        NamedMigration("sharing-1", """
            ALTER TABLE writing_projects ADD COLUMN view_only INTEGER NOT NULL DEFAULT 0 CHECK (view_only IN (0, 1));
            """),
        // Snapshot groups of record version 4 (SECURITY.md §15.2: compact deltas, a 16-byte check bound
        // to each member's id). No table changes: the migration marks a vault that may hold them, so
        // a vaultctl that does not know version 4 refuses the vault (it does not know the migration)
        // rather than calling its groups damaged. Version-3 groups are kept and read as before.
        NamedMigration("versions-7", """
            SELECT 1;
            """),
        // A project's name lookup (SECURITY.md §14.1): a keyed hash of its name bound to its id, so a
        // name typed on the command line finds a privileged project without opening every other's name
        // in a session. Clear, 16 bytes; NULL for a project whose name has not been written or read
        // since (it is written where the name is sealed, and kept when a session reads the name).
        NamedMigration("model-2", """
            ALTER TABLE writing_projects ADD COLUMN name_lookup BLOB CHECK (name_lookup IS NULL OR length(name_lookup) = 16);
            """),
        // A sync wrote words from elsewhere into the document this device's automatic-snapshot row
        // names since this device last wrote it (SECURITY.md §15.2, §15.6; attack review s6, P6): a
        // `doc write` without --base then keeps what it replaces as a version. Clear: a flag.
        NamedMigration("versions-8", """
            ALTER TABLE writing_auto_snapshots ADD COLUMN received INTEGER NOT NULL DEFAULT 0 CHECK (received IN (0, 1));
            """),
        // The leak guard's keyed fingerprints of the words written into ordinary projects (SECURITY.md
        // §11.7): a privileged project quoting them does not make them privileged. Clear: 64-bit
        // values keyed with the vault's secret, as `leak_fingerprints` holds.
        NamedMigration("leak-1", """
            CREATE TABLE writing_ordinary_fingerprints (fingerprint INTEGER PRIMARY KEY) STRICT;
            """),
        // Order keys longer than the change record carries (SECURITY.md §14.2; review 17 s10, N-s10-2):
        // before 0e761ab the store kept keys of 256 bytes (about 1,500 inserts at one place), which it
        // now reads as damage, so that project's binder would not open. Every list holding such a key
        // (a folder's items, a project's entries of one kind) takes keys anew in its order: `6` and the
        // item's rank in six base-36 digits (`6000001`, `6000002`, …); the next commit sends them as
        // moves (§19.3). Clear: order only. `rekeyed_order` is this migration's own scratch table.
        NamedMigration("binder-keys-1", """
            CREATE TEMP TABLE rekeyed_order (id BLOB PRIMARY KEY, rank INTEGER NOT NULL);
            INSERT INTO rekeyed_order (id, rank)
                SELECT id, ROW_NUMBER() OVER (PARTITION BY project_id, parent_id ORDER BY order_key, id) FROM writing_nodes AS node
                WHERE EXISTS (SELECT 1 FROM writing_nodes AS other WHERE other.project_id = node.project_id
                              AND other.parent_id IS node.parent_id AND length(CAST(other.order_key AS BLOB)) > 255);
            UPDATE writing_nodes SET order_key = (SELECT '6' || substr(d, rank / 60466176 % 36 + 1, 1) || substr(d, rank / 1679616 % 36 + 1, 1) || substr(d, rank / 46656 % 36 + 1, 1) || substr(d, rank / 1296 % 36 + 1, 1) || substr(d, rank / 36 % 36 + 1, 1) || substr(d, rank % 36 + 1, 1) FROM rekeyed_order, (SELECT '0123456789abcdefghijklmnopqrstuvwxyz' AS d)
                                                  WHERE rekeyed_order.id = writing_nodes.id)
                WHERE id IN (SELECT id FROM rekeyed_order);
            DELETE FROM rekeyed_order;
            INSERT INTO rekeyed_order (id, rank)
                SELECT id, ROW_NUMBER() OVER (PARTITION BY project_id, kind ORDER BY order_key, id) FROM writing_entries AS entry
                WHERE EXISTS (SELECT 1 FROM writing_entries AS other WHERE other.project_id = entry.project_id
                              AND other.kind = entry.kind AND length(CAST(other.order_key AS BLOB)) > 255);
            UPDATE writing_entries SET order_key = (SELECT '6' || substr(d, rank / 60466176 % 36 + 1, 1) || substr(d, rank / 1679616 % 36 + 1, 1) || substr(d, rank / 46656 % 36 + 1, 1) || substr(d, rank / 1296 % 36 + 1, 1) || substr(d, rank / 36 % 36 + 1, 1) || substr(d, rank % 36 + 1, 1) FROM rekeyed_order, (SELECT '0123456789abcdefghijklmnopqrstuvwxyz' AS d)
                                                    WHERE rekeyed_order.id = writing_entries.id)
                WHERE id IN (SELECT id FROM rekeyed_order);
            DROP TABLE rekeyed_order;
            """),
    ])
}
