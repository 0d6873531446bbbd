import CryptoVault

/// The exchange's tables (SECURITY.md §19.9), its own module so that the change records' module
/// (`SyncSchema`) stays the merge's. Clear columns hold ids, counters, roles, times and codes only.
/// Every statement naming these tables is in `SyncExchangeStore.swift`.
public enum SyncExchangeSchema {
    public static let module = ModuleSchema(module: "sync-exchange", migrations: [
        NamedMigration("exchange-1", """
            CREATE TABLE sync_peers (
                device_id BLOB PRIMARY KEY CHECK (length(device_id) = 16),
                paused INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
                last_sync_at INTEGER,
                last_attempt_at INTEGER,
                last_error TEXT,
                records_sent INTEGER NOT NULL DEFAULT 0,
                records_received INTEGER NOT NULL DEFAULT 0
            );
            CREATE TABLE sync_shares (
                compartment_uuid BLOB NOT NULL CHECK (length(compartment_uuid) = 16),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                role TEXT NOT NULL CHECK (role IN ('viewer', 'editor')),
                granted_at INTEGER NOT NULL,
                revoked_at INTEGER,
                PRIMARY KEY (compartment_uuid, device_id)
            );
            CREATE TABLE sync_origins (
                project_id BLOB PRIMARY KEY CHECK (length(project_id) = 16),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                access TEXT NOT NULL CHECK (access IN ('mine', 'editor', 'viewer'))
            );
            CREATE TABLE sync_roster (
                project_id BLOB NOT NULL CHECK (length(project_id) = 16),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                signing_key BLOB NOT NULL CHECK (length(signing_key) = 32),
                PRIMARY KEY (project_id, device_id)
            );
            CREATE TABLE sync_peer_vectors (
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                project_id BLOB NOT NULL CHECK (length(project_id) = 16),
                vector BLOB NOT NULL,
                PRIMARY KEY (device_id, project_id)
            );
            """),
        // A roster entry keeps the device's Noise key too, so a signer this vault knows only from a
        // roster can be named in its own offers (an offer's entry carries both keys, §19.9). NULL:
        // an entry kept before this migration, until a pairing or an offer gives the key.
        NamedMigration("exchange-2", """
            ALTER TABLE sync_roster ADD COLUMN noise_key BLOB CHECK (noise_key IS NULL OR length(noise_key) = 32);
            """),
        // The devices found to have forked a project's history (two records of one number, §19.4),
        // so a later exchange refuses their records at once instead of leaving them waiting.
        NamedMigration("exchange-3", """
            CREATE TABLE sync_forks (
                project_id BLOB NOT NULL CHECK (length(project_id) = 16),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                found_at INTEGER NOT NULL,
                PRIMARY KEY (project_id, device_id)
            );
            """),
        // Why a project was left in the last exchange with a device (its failure concerned that
        // project alone, §19.9), for `sync status`, until the project next syncs with the device.
        NamedMigration("exchange-4", """
            CREATE TABLE sync_project_skips (
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                project_id BLOB NOT NULL CHECK (length(project_id) = 16),
                reason TEXT NOT NULL CHECK (length(reason) BETWEEN 1 AND 1024),
                skipped_at INTEGER NOT NULL,
                PRIMARY KEY (device_id, project_id)
            );
            """),
        // The device whose offer made each project here (attack review s6, A12): only that own
        // device may later say whose the project is. No row: made here, or made before this table.
        NamedMigration("exchange-5", """
            CREATE TABLE sync_project_sources (
                project_id BLOB PRIMARY KEY CHECK (length(project_id) = 16),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                made_at INTEGER NOT NULL
            );
            """),
        // The devices whose offers named more devices than a project's roster keeps (attack review
        // s7, N1), each refusal recorded once: an offer repeated at every exchange adds no entry.
        NamedMigration("exchange-6", """
            CREATE TABLE sync_roster_refusals (
                project_id BLOB NOT NULL CHECK (length(project_id) = 16),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                refused_at INTEGER NOT NULL,
                PRIMARY KEY (project_id, device_id)
            );
            """),
        // When the origin set the role kept for a project (its clock, an offer's `role-since`), so a
        // stale role an own device relays never overrides a newer one (attack review s7, A5). NULL:
        // not known (kept before this migration, or by a repair or a mend).
        NamedMigration("exchange-8", """
            ALTER TABLE sync_origins ADD COLUMN role_since INTEGER CHECK (role_since IS NULL OR role_since >= 0);
            """),
        // The projects this vault made itself (attack review s7, the A12 fallback): with
        // `sync_project_sources`, whose a project is without reading the audit log. No row in
        // either: a project made before these tables (the log says it, `ProjectProvenance`). After
        // exchange-8, which landed first: a vault's applied list must stay a prefix of this one.
        NamedMigration("exchange-7", """
            CREATE TABLE sync_projects_made_here (
                project_id BLOB PRIMARY KEY CHECK (length(project_id) = 16),
                made_at INTEGER NOT NULL
            );
            """),
        // A project's records refused with a device, each way, while it lasts (attack review s8,
        // F20): `side` 'here' (the device's records, refused by this vault) or 'peer' (this vault's,
        // refused by the device); `records` in the last exchange that refused any (0: the project's
        // offer refused here); `reasons` their codes; `since` the first exchange of this run of them.
        NamedMigration("exchange-9", """
            CREATE TABLE sync_refusals (
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                project_id BLOB NOT NULL CHECK (length(project_id) = 16),
                side TEXT NOT NULL CHECK (side IN ('here', 'peer')),
                records INTEGER NOT NULL CHECK (records >= 0),
                reasons TEXT NOT NULL CHECK (length(reasons) BETWEEN 1 AND 1024),
                since INTEGER NOT NULL,
                last_at INTEGER NOT NULL,
                PRIMARY KEY (device_id, project_id, side)
            );
            """),
        // The devices this vault's own trust levels or grants once let write each project (review 17
        // s8, F19): only such a device (or one with a share here, or any but an own device for a
        // privileged project) is ended when it may no longer write; a paired device this vault never
        // granted is taken on an own device's word, as one not paired here. Rows are never removed.
        // Every device a roster named before this table is taken as granted here (the safe side).
        NamedMigration("exchange-10", """
            CREATE TABLE sync_granted_here (
                project_id BLOB NOT NULL CHECK (length(project_id) = 16),
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                granted_at INTEGER NOT NULL,
                PRIMARY KEY (project_id, device_id)
            );
            INSERT INTO sync_granted_here (project_id, device_id, granted_at) SELECT project_id, device_id, 0 FROM sync_roster;
            """),
        // Review 17 s9, N-s9-9: exchange-10 took every device a roster named as granted here, so a
        // colleague an own device's offer had named (F19) stayed ended on a vault that met F19
        // before the upgrade. Of its rows (granted_at 0) only those of what this vault decided stay:
        // the device each project came from (`sync_origins`), and a device whose offer made one of
        // the owner's own projects here (an own device then: only own devices offer those). A device
        // with a share here needs no row (its share decides); a `mine` device writes, and the next
        // exchange of the project grants it again.
        NamedMigration("exchange-11", """
            DELETE FROM sync_granted_here WHERE granted_at = 0
                AND NOT EXISTS (SELECT 1 FROM sync_origins WHERE sync_origins.project_id = sync_granted_here.project_id
                                AND sync_origins.device_id = sync_granted_here.device_id)
                AND NOT EXISTS (SELECT 1 FROM sync_project_sources WHERE sync_project_sources.device_id = sync_granted_here.device_id
                                AND sync_project_sources.project_id NOT IN (SELECT project_id FROM sync_origins));
            """),
        // What each device other than the owner's own added to each project here on its last day of
        // adding any (review 17 s8, F13, `SyncDeviceQuota`): records stored and their bytes, per day.
        NamedMigration("exchange-12", """
            CREATE TABLE sync_device_quotas (
                device_id BLOB NOT NULL CHECK (length(device_id) = 16),
                project_id BLOB NOT NULL CHECK (length(project_id) = 16),
                day INTEGER NOT NULL,
                records INTEGER NOT NULL CHECK (records >= 0),
                bytes INTEGER NOT NULL CHECK (bytes >= 0),
                PRIMARY KEY (device_id, project_id)
            );
            """),
        // The devices the owner said on one of their own devices are no longer theirs (review 17 s8,
        // F4): kept with the change of trust, or as an own device passed them on, and passed on to
        // the owner's other own devices (`sync.demotions`). `demoted_at` by the clock of `demoted_by`,
        // which signed the entry (`signature`); `was_mine`: this vault trusted the device `mine` when
        // it kept the row (its own signed demotions still count here); `lifted_at`: when the owner made
        // the device `mine` again here (the row then only remembers that).
        NamedMigration("exchange-13", """
            CREATE TABLE sync_demotions (
                device_id BLOB PRIMARY KEY CHECK (length(device_id) = 16),
                signing_key BLOB NOT NULL CHECK (length(signing_key) = 32),
                demoted_at INTEGER NOT NULL CHECK (demoted_at >= 0),
                demoted_by BLOB NOT NULL CHECK (length(demoted_by) = 16),
                signature BLOB NOT NULL CHECK (length(signature) = 64),
                was_mine INTEGER NOT NULL CHECK (was_mine IN (0, 1)),
                lifted_at INTEGER CHECK (lifted_at IS NULL OR lifted_at >= 0)
            );
            """),
    ])
}
