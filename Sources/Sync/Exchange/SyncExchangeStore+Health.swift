import CryptoVault
import Writing

/// Whether the exchange's own tables (SECURITY.md §19.9, `SyncExchangeSchema`) can be trusted, and
/// their mending (`vaultctl repair`). They say which devices may read and write which projects and
/// whose keys verify records, so a damaged one must not be read as if it were whole: the exchange
/// refuses to run (`damagedSyncState`, naming the table and what is wrong), every project works
/// local-only (its documents read and written as ever) and `vaultctl sync status` says why, until
/// `SyncExchangeHealth.mend` keeps the rows that are whole and drops the others. Beside
/// `SyncExchangeStore` (its file's name says so), the one other place that names those tables.
public enum SyncExchangeHealth {
    /// What each table's row must hold to be one a writer of `SyncExchangeStore` made, as SQL over
    /// its columns (by `typeof`, so a value of another type never passes as one it resembles).
    static let wholeRows: [String: String] = [
        "sync_peers": """
            \(blob("device_id", 16)) AND typeof(paused) = 'integer' AND paused IN (0, 1) AND \(timeColumn("last_sync_at", null: true))
            AND \(timeColumn("last_attempt_at", null: true)) AND (last_error IS NULL OR (typeof(last_error) = 'text' AND length(last_error) BETWEEN 1 AND 1024))
            AND typeof(records_sent) = 'integer' AND records_sent >= 0 AND typeof(records_received) = 'integer' AND records_received >= 0
            """,
        "sync_shares": """
            \(blob("compartment_uuid", 16)) AND \(blob("device_id", 16)) AND typeof(role) = 'text' AND role IN ('viewer', 'editor')
            AND \(timeColumn("granted_at", null: false)) AND \(timeColumn("revoked_at", null: true))
            """,
        "sync_origins": """
            \(blob("project_id", 16)) AND \(blob("device_id", 16)) AND typeof(access) = 'text' AND access IN ('mine', 'editor', 'viewer')
            AND (role_since IS NULL OR (typeof(role_since) = 'integer' AND role_since >= 0))
            """,
        "sync_roster": "\(blob("project_id", 16)) AND \(blob("device_id", 16)) AND \(blob("signing_key", 32)) AND (noise_key IS NULL OR \(blob("noise_key", 32)))",
        "sync_peer_vectors": "\(blob("device_id", 16)) AND \(blob("project_id", 16)) AND typeof(vector) = 'blob'",
        "sync_forks": "\(blob("project_id", 16)) AND \(blob("device_id", 16)) AND \(timeColumn("found_at", null: false))",
        "sync_project_sources": "\(blob("project_id", 16)) AND \(blob("device_id", 16)) AND \(timeColumn("made_at", null: false))",
        "sync_roster_refusals": "\(blob("project_id", 16)) AND \(blob("device_id", 16)) AND \(timeColumn("refused_at", null: false))",
        "sync_projects_made_here": "\(blob("project_id", 16)) AND \(timeColumn("made_at", null: false))",
        "sync_granted_here": "\(blob("project_id", 16)) AND \(blob("device_id", 16)) AND \(timeColumn("granted_at", null: false))",
        "sync_demotions": """
            \(blob("device_id", 16)) AND \(blob("signing_key", 32)) AND typeof(demoted_at) = 'integer' AND demoted_at >= 0 AND \(blob("demoted_by", 16))
            AND \(blob("signature", 64)) AND typeof(was_mine) = 'integer' AND was_mine IN (0, 1)
            AND (lifted_at IS NULL OR (typeof(lifted_at) = 'integer' AND lifted_at >= 0))
            """,
        "sync_project_skips": """
            \(blob("device_id", 16)) AND \(blob("project_id", 16)) AND typeof(reason) = 'text' AND length(reason) BETWEEN 1 AND 1024
            AND \(timeColumn("skipped_at", null: false))
            """,
        "sync_device_quotas": """
            \(blob("device_id", 16)) AND \(blob("project_id", 16)) AND typeof(day) = 'integer'
            AND typeof(records) = 'integer' AND records BETWEEN 0 AND \(SyncDeviceQuota.greatestRecords)
            AND typeof(bytes) = 'integer' AND bytes BETWEEN 0 AND \(SyncDeviceQuota.greatestBytes)
            """,
        "sync_refusals": """
            \(blob("device_id", 16)) AND \(blob("project_id", 16)) AND typeof(side) = 'text' AND side IN ('here', 'peer')
            AND typeof(records) = 'integer' AND records >= 0 AND typeof(reasons) = 'text' AND length(reasons) BETWEEN 1 AND 1024
            AND \(timeColumn("since", null: false)) AND \(timeColumn("last_at", null: false))
            """,
    ]

    private static func blob(_ column: String, _ length: Int) -> String { "(typeof(\(column)) = 'blob' AND length(\(column)) = \(length))" }
    /// A time is any integer: its writers keep what the clock said, and a clock set before 1970
    /// is no damage (attack review s6, P1: a rule no stricter than its writer).
    private static func timeColumn(_ column: String, null: Bool) -> String {
        "(\(null ? "\(column) IS NULL OR " : "")typeof(\(column)) = 'integer')"
    }

    /// What is wrong with the exchange's tables as a whole, or nil when nothing is, or when all that
    /// is wrong concerns one project or one device each (`damage(in:)`). Only reads.
    package static func problem(in transaction: VaultTransaction) -> String? {
        damage(in: transaction).whole
    }

    /// The tables whose damaged row concerns the one device its whole `device_id` names: its state
    /// (`sync_peers`), the compartments shared with it (`sync_shares`) and what it added here today
    /// (`sync_device_quotas`: its rows name projects, but its day's bound is over all of them
    /// together, so a damaged one is the device's; reviewer12 on ac2bc31, F13 LOW). Any other table
    /// with a `project_id` column concerns the project it names. Any other (`sync_demotions`: which
    /// devices are the owner's, passed to every own device) concerns every exchange.
    static let deviceTables: Set<String> = ["sync_peers", "sync_shares", "sync_device_quotas"]

    /// The tables that say where each project came from: a row of one whose whole project id names
    /// no project here (`strayRows`) is damage no one project holds.
    static let provenanceTables: Set<String> = ["sync_origins", "sync_project_sources"]

    /// What is wrong with the exchange's tables, by what it touches (task "rows", session 12): a
    /// damaged row whose project id is whole is that project's (it works local-only, the other
    /// projects sync), one of a device table whose device id is whole that device's (exchanges with
    /// it are off), and anything else (a table missing, of other columns, unreadable, a row naming
    /// no whole id, a row of `provenanceTables` naming no project here) the whole exchange's, as
    /// before. Only reads.
    package static func damage(in transaction: VaultTransaction) -> SyncExchangeDamage {
        let database = transaction.database
        var damage = SyncExchangeDamage()
        do {
            // A vault that has not made the module's tables (yet) has nothing of it to damage.
            let applied = try AppliedModuleMigrations.modules(in: database).filter { $0 == SyncExchangeSchema.module.module }.count
            guard applied == SyncExchangeSchema.module.migrations.count else { return damage }
            for (table, columns) in try reference() {
                let found = try database.query("PRAGMA table_info(\"\(table)\")").map { try $0.text("name") }
                if found.isEmpty { return SyncExchangeDamage(whole: "the table \(table) is missing") }
                if found != columns { return SyncExchangeDamage(whole: "the table \(table) does not have the columns its migrations made") }
                // Whose project such a row was cannot be told: its id names none here (N-s12-6).
                let strays = try strayRows(of: table, in: transaction)
                if !strays.isEmpty, damage.whole == nil {
                    damage.whole = "the table \(table) holds \(strays.count) row(s) naming no project here (whose they are cannot be told)"
                }
                let bad = try damagedRows(of: table, in: database)
                guard !bad.isEmpty else { continue }
                let what = "the table \(table) holds \(bad.count) row(s) no writer makes (\(wholeness(of: table)))"
                let key = deviceTables.contains(table) ? "device_id" : columns.contains("project_id") ? "project_id" : nil
                for rowid in bad {
                    let id = try key.map { key in
                        try database.queryOne("SELECT CASE WHEN typeof(\(key)) = 'blob' AND length(\(key)) = 16 THEN \(key) END AS id FROM \"\(table)\" WHERE rowid = ?",
                                              [.integer(rowid)])?.blob("id") ?? []
                    } ?? []
                    switch key {
                    case "project_id" where !id.isEmpty: damage.projects[try ProjectID(bytes: id), default: []].append(what)
                    case "device_id" where !id.isEmpty: damage.devices[try DeviceID(bytes: id), default: []].append(what)
                    default: if damage.whole == nil { damage.whole = what }
                    }
                }
            }
        } catch {
            return SyncExchangeDamage(whole: "the exchange's tables cannot be read (\((error as? CryptoVaultError)?.code.rawValue ?? "unreadable"))")
        }
        return damage
    }


    static func refusal(_ problem: String) -> SyncError {
        SyncError(.damagedSyncState, """
            sync state is damaged: \(problem); sync with every device is off and every project works local-only \
            until 'vaultctl repair' mends it
            """)
    }

    private static func wholeness(of table: String) -> String {
        switch table {
        case "sync_roster": "a key of the wrong length, or a device id its keys do not derive"
        case "sync_peer_vectors": "a version vector that does not parse"
        case "sync_device_quotas": "a count past any day's bound, or a value outside what the column holds"
        default: "a value outside what the column holds"
        }
    }

    /// The rowids of the table's rows that no writer makes: outside `wholeRows`, a roster entry whose
    /// device id its two keys do not derive (every writer checks it), a version vector that does not
    /// parse to its end.
    static func damagedRows(of table: String, in database: Database) throws -> [Int64] {
        guard let whole = wholeRows[table] else { return [] }
        var bad = try database.query("SELECT rowid FROM \"\(table)\" WHERE NOT (\(whole))").map { try $0.integer("rowid") }
        switch table {
        case "sync_roster":
            for row in try database.query("SELECT rowid, device_id, signing_key, noise_key FROM sync_roster WHERE (\(whole)) AND noise_key IS NOT NULL") {
                let derived = DeviceProfile.deriveIdentifier(signingPublicKey: try row.blob("signing_key"), noisePublicKey: try row.blob("noise_key"))
                if derived.bytes != (try row.blob("device_id")) { bad.append(try row.integer("rowid")) }
            }
        case "sync_peer_vectors":
            for row in try database.query("SELECT rowid, vector FROM sync_peer_vectors WHERE (\(whole))") {
                var reader = SyncWireReader(try row.blob("vector"))
                do {
                    _ = try SyncWire.vector(&reader)
                    try reader.end()
                } catch { bad.append(try row.integer("rowid")) }
            }
        default: break
        }
        return bad
    }

    /// The rows of a table of `provenanceTables` whose project id is whole but names no project here
    /// (review 17 s12, N-s12-6: one byte of `sync_origins.project_id` made a colleague's project look
    /// like the owner's own, shared on to a third device). No writer keeps such a row: a project is
    /// never removed, and its row is written with it. Another table's: none.
    static func strayRows(of table: String, in transaction: VaultTransaction) throws -> [Int64] {
        // The in-memory mode's copy (SECURITY.md §19.10) keeps these tables and empties the writing
        // store: their rows name the vault's projects the copy does not read, not projects gone, and
        // taken as damage they turned sync off there, the one way to read an own device's copy
        // (reviewer 20, F20-3). The copy is never mended: `repair` works on the vault itself.
        guard provenanceTables.contains(table), transaction.vault.vault.inMemoryCopyReason == nil else { return [] }
        let store = WritingStore(transaction)
        return try transaction.database.query("SELECT rowid, project_id FROM \"\(table)\" WHERE \(blob("project_id", 16))").compactMap { row in
            try VaultSync.UnownedRecords.names(try row.blob("project_id"), in: store) ? nil : try row.integer("rowid")
        }
    }

    /// The module's tables in the order made, each with its columns: from its migrations run on an
    /// empty database in memory (never from the vault's own, possibly damaged, schema).
    static func reference() throws -> [(table: String, columns: [String])] {
        let database = try Database(path: ":memory:", create: true, readOnly: false)
        for migration in SyncExchangeSchema.module.migrations { try database.execute(migration.sql) }
        return try database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid").map { try $0.text("name") }.map { table in
            (table, try database.query("PRAGMA table_info(\"\(table)\")").map { try $0.text("name") })
        }
    }
}

/// What is wrong with the exchange's tables (`SyncExchangeHealth.damage(in:)`), by what it touches.
public struct SyncExchangeDamage: Sendable, Equatable {
    /// Damage no one project or device holds: sync with every device is off until `vaultctl repair`.
    public var whole: String?
    /// Projects with a damaged row (what is wrong, per table): each works local-only until mended.
    public var projects: [ProjectID: [String]] = [:]
    /// Devices with a damaged row: sync with each is off until mended.
    public var devices: [DeviceID: [String]] = [:]

    public init(whole: String? = nil) { self.whole = whole }

    /// Why `project` works local-only, or nil when its rows are whole.
    public func reason(for project: ProjectID) -> String? {
        guard let what = projects[project] else { return nil }
        return "the sync state of project \(project) is damaged: \(Set(what).sorted().joined(separator: "; ")); the project works local-only until 'vaultctl repair' mends it"
    }

    /// Why sync with `device` is off, or nil when its rows are whole.
    public func reason(for device: DeviceID) -> String? {
        guard let what = devices[device] else { return nil }
        return "the sync state of device \(device.hex) is damaged: \(Set(what).sorted().joined(separator: "; ")); sync with it is off until 'vaultctl repair' mends it"
    }
}

/// What mending the exchange's tables did.
public struct SyncExchangeMend: Sendable, Equatable {
    /// Tables made again empty because they were missing or had other columns.
    public var remade: [String] = []
    /// Rows dropped, by table (a damaged peer row whose device id is whole comes back paused).
    public var dropped: [String: Int] = [:]
    /// Projects held from someone else's device whose origin row was lost and is put back from the
    /// audit log (`SyncOriginHistory`).
    public var originsRestored: [ProjectID] = []
    /// Why origins the audit log names could not be put back, when they could not (the writing
    /// store is damaged too and cannot list its projects; attack review s7, P2): until `vaultctl
    /// repair --from DEVICE` rebuilds it, taking each origin as §19.10 says, nothing may be taken
    /// for granted about whose those projects are. Nil when nothing stopped them.
    public var originsNotRestored: String?

    public var changed: Bool { !remade.isEmpty || !dropped.isEmpty }
}

extension SyncExchangeHealth {
    /// `vaultctl repair` without --from: the audit log read for the projects' origins, then the
    /// tables mended in one audited transaction (`mend(in:origins:)`).
    public static func mend(_ vault: UnlockedVault) throws -> SyncExchangeMend {
        let history = try SyncOriginHistory(vault)
        return try vault.transaction { tx in try mend(in: tx, origins: history) }
    }

    /// Mends the exchange's tables in the caller's audited transaction: every table is made again
    /// by the module's migrations, and the whole rows of each one that had its columns are copied
    /// back. A dropped row's grant is lost on the safe side (a share grants nothing more; a roster
    /// key lost leaves its records unverified, their project local-only until `vaultctl repair
    /// --from DEVICE`; a vector or a fork is learnt again at the next exchange; devices granted here
    /// lost are granted again where this vault decided: `grantDecidedRostered`); a damaged peer row
    /// whose device id is whole comes back paused, so a pause is never lost: the owner resumes it.
    /// An origin is not a grant: without it a project is the owner's own (shared on, offered as
    /// `mine`), so a lost one is put back from the audit log (`origins`), in the role the project's
    /// view-only mark says (attack review s6, P2). Recorded as `sync.exchange-mended` (details:
    /// remade, dropped, origins: how many put back) when it changed anything.
    static func mend(in transaction: VaultTransaction, origins history: SyncOriginHistory) throws -> SyncExchangeMend {
        let database = transaction.database
        var mend = SyncExchangeMend()
        let reference = try reference()
        var kept: [(table: String, columns: [String], bad: [Int64])] = []
        for (table, columns) in reference {
            let found = try database.query("PRAGMA table_info(\"\(table)\")").map { try $0.text("name") }
            guard found == columns, let bad = try? damagedRows(of: table, in: database) + strayRows(of: table, in: transaction) else {
                mend.remade.append(table)
                try database.execute("DROP TABLE IF EXISTS \"\(table)\"")
                continue
            }
            if !bad.isEmpty { mend.dropped[table] = bad.count }
            try database.execute("ALTER TABLE \"\(table)\" RENAME TO \"\(table)_mending\"")
            kept.append((table, columns, bad))
        }
        guard mend.changed else {
            for (table, _, _) in kept { try database.execute("ALTER TABLE \"\(table)_mending\" RENAME TO \"\(table)\"") }
            return mend
        }
        for migration in SyncExchangeSchema.module.migrations { try database.execute(migration.sql) }
        for (table, columns, bad) in kept {
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            let excluded = bad.map(String.init).joined(separator: ", ")
            try database.execute("INSERT OR IGNORE INTO \"\(table)\" (\(list)) SELECT \(list) FROM \"\(table)_mending\" WHERE rowid NOT IN (\(excluded))")
            if table == "sync_peers", !bad.isEmpty {
                try database.execute("""
                    INSERT OR IGNORE INTO sync_peers (device_id, paused) SELECT device_id, 1 FROM sync_peers_mending
                    WHERE rowid IN (\(excluded)) AND typeof(device_id) = 'blob' AND length(device_id) = 16
                    """)
            }
            try database.execute("DROP TABLE \"\(table)_mending\"")
        }
        // Rows lost: what this vault decided is granted again (never every rostered device: N-s9-9).
        if mend.remade.contains("sync_granted_here") || mend.dropped["sync_granted_here"] != nil {
            try SyncExchangeStore(database: database).grantDecidedRostered()
        }
        if mend.remade.contains("sync_origins") || mend.dropped["sync_origins"] != nil {
            switch try restoreOrigins(from: history, in: transaction) {
            case .success(let restored): mend.originsRestored = restored
            case .failure(let unread): mend.originsNotRestored = unread.reason
            }
        }
        let dropped = mend.dropped.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        var details: [VaultEvent.Detail] = [.init("remade", mend.remade.isEmpty ? "none" : mend.remade.joined(separator: ",")),
                                            .init("dropped", dropped.isEmpty ? "none" : dropped),
                                            .init("origins", String(mend.originsRestored.count))]
        if mend.originsNotRestored != nil { details.append(.init("origins-not-restored", String(history.origins.count))) }
        try transaction.record(.syncExchangeMended, details: details)
        return mend
    }

    /// Why the origins could not be put back.
    struct OriginsUnread: Error {
        let reason: String
    }

    /// Each ordinary project held here without an origin row whose audit history names someone
    /// else's device gets that origin back: `viewer` when the project is view-only (the mark
    /// `follow` keeps with the role), else `editor`. Returns the projects put back, or why none
    /// could be: a writing store that cannot list its projects (damaged too) does not say which are
    /// ordinary or view-only. Said, never passed over (attack review s7, P2): those projects would
    /// otherwise look like the owner's own with nothing to tell why.
    private static func restoreOrigins(from history: SyncOriginHistory, in transaction: VaultTransaction) throws -> Result<[ProjectID], OriginsUnread> {
        guard !history.origins.isEmpty else { return .success([]) }
        let store = SyncExchangeStore(database: transaction.database)
        var restored: [ProjectID] = []
        let projects: [WritingProject]
        do { projects = try WritingStore(transaction).projects() } catch {
            let code = (error as? CryptoVaultError)?.code.rawValue ?? (error as? WritingError)?.code.rawValue ?? "unreadable"
            return .failure(OriginsUnread(reason: """
                the writing store cannot list its projects (\(code)), so the origins of \(history.origins.count) project(s) held from \
                someone else's device, as the audit log says, were not put back; 'vaultctl repair --from DEVICE' rebuilds the store \
                from your own device and takes each project's origin from it
                """))
        }
        for project in projects where !project.isPrivileged {
            guard let device = history.origins[project.id], try store.origin(of: project.id) == nil else { continue }
            try store.setOrigin(of: project.id, device: device, access: project.isViewOnly ? .viewer : .editor)
            restored.append(project.id)
        }
        return .success(restored)
    }
}
