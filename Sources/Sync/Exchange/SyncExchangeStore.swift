import CryptoVault
import Writing

/// The exchange's tables (`SyncExchangeSchema`), read and written here only, inside the caller's
/// transaction: per peer its state, the projects shared with devices, where each project came from,
/// the devices a project takes records from, and what each peer held at the last exchange.
struct SyncExchangeStore {
    let database: Database

    struct PeerRow: Sendable {
        var paused = false
        var lastSyncAt: Int64?
        var lastAttemptAt: Int64?
        var lastError: String?
        var recordsSent: Int64 = 0
        var recordsReceived: Int64 = 0
    }

    // MARK: Peers

    func peer(_ device: DeviceID) throws -> PeerRow? {
        guard let row = try database.queryOne("SELECT * FROM sync_peers WHERE device_id = ?", [.blob(device.bytes)]) else { return nil }
        return PeerRow(paused: try row.integer("paused") == 1, lastSyncAt: Self.optionalInteger(row["last_sync_at"]),
                       lastAttemptAt: Self.optionalInteger(row["last_attempt_at"]),
                       lastError: { if case .text(let text) = row["last_error"] { text } else { nil } }(),
                       recordsSent: try row.integer("records_sent"), recordsReceived: try row.integer("records_received"))
    }

    func setPaused(_ device: DeviceID, _ paused: Bool) throws {
        try database.query("""
            INSERT INTO sync_peers (device_id, paused) VALUES (?, ?) ON CONFLICT (device_id) DO UPDATE SET paused = excluded.paused
            """, [.blob(device.bytes), .integer(paused ? 1 : 0)])
    }

    /// An exchange's end: its time, its error (nil when it completed), and what moved.
    func recordAttempt(_ device: DeviceID, at time: Int64, error: String?, sent: Int, received: Int) throws {
        try database.query("""
            INSERT INTO sync_peers (device_id) VALUES (?) ON CONFLICT (device_id) DO NOTHING
            """, [.blob(device.bytes)])
        try database.query("""
            UPDATE sync_peers SET last_attempt_at = ?, last_error = ?, records_sent = records_sent + ?, records_received = records_received + ?,
                last_sync_at = CASE WHEN ? IS NULL THEN ? ELSE last_sync_at END WHERE device_id = ?
            """, [.integer(time), error.map { .text(Self.bounded($0)) } ?? .null, .integer(Int64(sent)), .integer(Int64(received)),
                  error.map { .text(Self.bounded($0)) } ?? .null, .integer(time), .blob(device.bytes)])
    }

    /// A reason as the exchange's tables keep it (`last_error`, `sync_project_skips.reason`): part of
    /// it may be the peer's words (its refusal's text), so it is cut to what the health check takes
    /// as whole (SECURITY.md §19.9): no control character (SQLite measures a text up to its first
    /// NUL), at most 1,024 bytes, never empty.
    static func bounded(_ reason: String) -> String {
        let clean = String(String.UnicodeScalarView(reason.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        var cut = String(decoding: clean.utf8.prefix(1024), as: UTF8.self)
        while cut.utf8.count > 1024 { cut.removeLast() }
        return cut.isEmpty ? "unknown" : cut
    }

    // MARK: Shares

    func share(of compartment: CompartmentID, with device: DeviceID) throws -> ShareRole? {
        try database.queryOne("SELECT role FROM sync_shares WHERE compartment_uuid = ? AND device_id = ? AND revoked_at IS NULL",
                              [.blob(compartment.bytes), .blob(device.bytes)]).flatMap { ShareRole(rawValue: try $0.text("role")) }
    }

    /// When the share of `compartment` with `device` that stands was granted (this vault's clock).
    func shareGranted(of compartment: CompartmentID, with device: DeviceID) throws -> Int64? {
        try database.queryOne("SELECT granted_at FROM sync_shares WHERE compartment_uuid = ? AND device_id = ? AND revoked_at IS NULL",
                              [.blob(compartment.bytes), .blob(device.bytes)]).map { try $0.integer("granted_at") }
    }

    /// The devices a share of `compartment` granted here stands with, either role.
    func sharers(of compartment: CompartmentID) throws -> [DeviceID] {
        try database.query("SELECT device_id FROM sync_shares WHERE compartment_uuid = ? AND revoked_at IS NULL ORDER BY rowid",
                           [.blob(compartment.bytes)]).map { try DeviceID(bytes: try $0.blob("device_id")) }
    }

    func editors(of compartment: CompartmentID) throws -> [DeviceID] {
        try database.query("SELECT device_id FROM sync_shares WHERE compartment_uuid = ? AND role = 'editor' AND revoked_at IS NULL",
                           [.blob(compartment.bytes)]).map { try DeviceID(bytes: try $0.blob("device_id")) }
    }

    func setShare(of compartment: CompartmentID, with device: DeviceID, role: ShareRole, at time: Int64) throws {
        try database.query("""
            INSERT INTO sync_shares (compartment_uuid, device_id, role, granted_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (compartment_uuid, device_id) DO UPDATE SET role = excluded.role, granted_at = excluded.granted_at, revoked_at = NULL
            """, [.blob(compartment.bytes), .blob(device.bytes), .text(role.rawValue), .integer(time)])
    }

    /// The compartments whose share granted here to `device` is in force.
    func sharedCompartments(with device: DeviceID) throws -> Set<CompartmentID> {
        Set(try database.query("SELECT compartment_uuid FROM sync_shares WHERE device_id = ? AND revoked_at IS NULL", [.blob(device.bytes)])
            .map { try CompartmentID(bytes: try $0.blob("compartment_uuid")) })
    }

    func revokeShare(of compartment: CompartmentID, with device: DeviceID, at time: Int64) throws {
        try database.query("UPDATE sync_shares SET revoked_at = ? WHERE compartment_uuid = ? AND device_id = ? AND revoked_at IS NULL",
                           [.integer(time), .blob(compartment.bytes), .blob(device.bytes)])
    }

    /// Whether this vault ever shared `compartment` with `device` (a share standing or revoked).
    func everShared(_ compartment: CompartmentID, with device: DeviceID) throws -> Bool {
        try database.queryOne("SELECT 1 AS shared FROM sync_shares WHERE compartment_uuid = ? AND device_id = ?",
                              [.blob(compartment.bytes), .blob(device.bytes)]) != nil
    }

    // MARK: Granted here

    /// The devices this vault's own trust levels or grants once let write the project (F19).
    func grantedHere(_ project: ProjectID) throws -> Set<DeviceID> {
        Set(try database.query("SELECT device_id FROM sync_granted_here WHERE project_id = ?", [.blob(project.bytes)])
            .map { try DeviceID(bytes: try $0.blob("device_id")) })
    }

    /// Keeps that this vault's own trust levels or grants let `devices` write the project (a row
    /// kept stays as it was).
    func grantHere(_ devices: some Sequence<DeviceID>, of project: ProjectID, at time: Int64) throws {
        for device in devices {
            try database.query("INSERT OR IGNORE INTO sync_granted_here (project_id, device_id, granted_at) VALUES (?, ?, ?)",
                               [.blob(project.bytes), .blob(device.bytes), .integer(time)])
        }
    }

    /// After a mend dropped rows of `sync_granted_here`: the rostered devices this vault decided on
    /// itself, taken as granted here (what migration exchange-11 keeps): each project's origin, and
    /// each device whose offer made one of the owner's own projects here (an own device then). Never
    /// every rostered device: a colleague an own device's offer named would be ended here, and every
    /// later record built on its edit would wait for ever (review 17 s9, N-s9-9; s8, F19).
    func grantDecidedRostered() throws {
        try database.query("""
            INSERT OR IGNORE INTO sync_granted_here (project_id, device_id, granted_at)
            SELECT project_id, device_id, 0 FROM sync_roster AS rostered
            WHERE EXISTS (SELECT 1 FROM sync_origins WHERE sync_origins.project_id = rostered.project_id
                          AND sync_origins.device_id = rostered.device_id)
               OR EXISTS (SELECT 1 FROM sync_project_sources WHERE sync_project_sources.device_id = rostered.device_id
                          AND sync_project_sources.project_id NOT IN (SELECT project_id FROM sync_origins))
            """)
    }

    // MARK: Origins and rosters

    func origin(of project: ProjectID) throws -> (device: DeviceID, access: SyncAccess)? {
        guard let row = try database.queryOne("SELECT device_id, access FROM sync_origins WHERE project_id = ?", [.blob(project.bytes)]),
              let access = SyncAccess.allCases.first(where: { (try? row.text("access")) == $0.name }) else { return nil }
        return (try DeviceID(bytes: try row.blob("device_id")), access)
    }

    /// Every project's recorded origin (whose it is, and the role that device gave).
    func sharedOrigins() throws -> [(ProjectID, (device: DeviceID, access: SyncAccess))] {
        try database.query("SELECT project_id, device_id, access FROM sync_origins").compactMap { row in
            guard let access = SyncAccess.allCases.first(where: { (try? row.text("access")) == $0.name }) else { return nil }
            return (try ProjectID(bytes: try row.blob("project_id")), (try DeviceID(bytes: try row.blob("device_id")), access))
        }
    }

    /// The projects held here that `device` shared with this vault (it is their origin, as editor or viewer).
    func projectsShared(by device: DeviceID) throws -> [ProjectID] {
        try database.query("SELECT project_id FROM sync_origins WHERE device_id = ? AND access IN ('editor', 'viewer')", [.blob(device.bytes)])
            .map { try ProjectID(bytes: try $0.blob("project_id")) }
    }

    /// Keeps whose the project is and the role that device gave; `since`, the role's time (the
    /// offer's `role-since`), when known (nil: not known, read as 0).
    func setOrigin(of project: ProjectID, device: DeviceID, access: SyncAccess, since: UInt64? = nil) throws {
        try database.query("INSERT OR REPLACE INTO sync_origins (project_id, device_id, access, role_since) VALUES (?, ?, ?, ?)",
                           [.blob(project.bytes), .blob(device.bytes), .text(access.name), since.map { .integer(Int64(min($0, UInt64(Int64.max)))) } ?? .null])
    }

    /// When the origin set the role kept for `project` (its clock; `exchange-8`), 0 when not known.
    func roleSince(of project: ProjectID) throws -> UInt64 {
        guard let row = try database.queryOne("SELECT role_since FROM sync_origins WHERE project_id = ?", [.blob(project.bytes)]),
              let since = Self.optionalInteger(row["role_since"]), since > 0 else { return 0 }
        return UInt64(since)
    }

    /// The device whose offer made `project` here, when this vault recorded it (`exchange-5`).
    func source(of project: ProjectID) throws -> DeviceID? {
        try database.queryOne("SELECT device_id FROM sync_project_sources WHERE project_id = ?", [.blob(project.bytes)])
            .map { try DeviceID(bytes: try $0.blob("device_id")) }
    }

    func setSource(of project: ProjectID, device: DeviceID, at time: Int64) throws {
        try database.query("INSERT OR REPLACE INTO sync_project_sources (project_id, device_id, made_at) VALUES (?, ?, ?)",
                           [.blob(project.bytes), .blob(device.bytes), .integer(time)])
    }

    /// Whether this vault recorded `project` as made here (`exchange-7`).
    func madeHere(_ project: ProjectID) throws -> Bool {
        try database.queryOne("SELECT 1 AS found FROM sync_projects_made_here WHERE project_id = ?", [.blob(project.bytes)]) != nil
    }

    func setMadeHere(_ project: ProjectID, at time: Int64) throws {
        try database.query("INSERT OR IGNORE INTO sync_projects_made_here (project_id, made_at) VALUES (?, ?)",
                           [.blob(project.bytes), .integer(time)])
    }

    /// The project is no longer held from another device: it is the owner's own here.
    func removeOrigin(of project: ProjectID) throws {
        try database.query("DELETE FROM sync_origins WHERE project_id = ?", [.blob(project.bytes)])
    }

    /// The project is no longer held here (`repair --from` dropped it): where it came from and what
    /// it was made from go with it, since a row of either naming no project is damage (N-s12-6).
    func forgetProvenance(of project: ProjectID) throws {
        try database.query("DELETE FROM sync_origins WHERE project_id = ?", [.blob(project.bytes)])
        try database.query("DELETE FROM sync_project_sources WHERE project_id = ?", [.blob(project.bytes)])
    }

    func roster(of project: ProjectID) throws -> [DeviceID: [UInt8]] {
        var keys: [DeviceID: [UInt8]] = [:]
        for row in try database.query("SELECT device_id, signing_key FROM sync_roster WHERE project_id = ?", [.blob(project.bytes)]) {
            keys[try DeviceID(bytes: try row.blob("device_id"))] = try row.blob("signing_key")
        }
        return keys
    }

    /// The roster's devices whose two keys are kept, as an offer names them; an entry whose id is
    /// not the one its keys derive (damage: every writer checks it) is left out.
    func rosterEntries(of project: ProjectID) throws -> [SyncRosterEntry] {
        try database.query("SELECT device_id, signing_key, noise_key FROM sync_roster WHERE project_id = ? AND noise_key IS NOT NULL",
                           [.blob(project.bytes)]).compactMap { row in
            let entry = SyncRosterEntry(device: try DeviceID(bytes: try row.blob("device_id")), signingKey: try row.blob("signing_key"),
                                        noiseKey: try row.blob("noise_key"))
            return DeviceProfile.deriveIdentifier(signingPublicKey: entry.signingKey, noisePublicKey: entry.noiseKey) == entry.device ? entry : nil
        }
    }

    /// Adds devices a peer vouched for (their ids derive from both keys: the offer's reader checked
    /// it); a device already known keeps the signing key it was first known by, and gains the Noise
    /// key when it was kept without one under the same signing key. A device new here is kept only
    /// while the project's roster holds fewer than `SyncWire.maximumRoster` (what one offer names,
    /// §19.9): a peer's offers, however many, never grow it past that (attack review s7, N1). Returns
    /// the devices added, and those not kept for want of room.
    @discardableResult
    func addRoster(_ entries: [SyncRosterEntry], of project: ProjectID) throws -> (added: [DeviceID], refused: [DeviceID]) {
        var added: [DeviceID] = [], refused: [DeviceID] = []
        var kept = try rosterCount(of: project)
        for entry in entries {
            if kept < SyncWire.maximumRoster {
                try database.query("INSERT OR IGNORE INTO sync_roster (project_id, device_id, signing_key, noise_key) VALUES (?, ?, ?, ?)",
                                   [.blob(project.bytes), .blob(entry.device.bytes), .blob(entry.signingKey), .blob(entry.noiseKey)])
                if database.changes > 0 {
                    added.append(entry.device)
                    kept += 1
                    continue
                }
            } else if try !holdsRoster(entry.device, of: project) {
                refused.append(entry.device)
                continue
            }
            try fillNoiseKey(entry, of: project)
        }
        return (added, refused)
    }

    /// How many devices the project's roster keeps.
    func rosterCount(of project: ProjectID) throws -> Int {
        Int(try database.queryOne("SELECT count(*) AS kept FROM sync_roster WHERE project_id = ?", [.blob(project.bytes)])?.integer("kept") ?? 0)
    }

    private func holdsRoster(_ device: DeviceID, of project: ProjectID) throws -> Bool {
        try database.queryOne("SELECT 1 AS held FROM sync_roster WHERE project_id = ? AND device_id = ?",
                              [.blob(project.bytes), .blob(device.bytes)]) != nil
    }

    /// Whether a refusal of `device`'s roster entries for `project` (the roster full) was recorded.
    func rosterRefusalRecorded(by device: DeviceID, of project: ProjectID) throws -> Bool {
        try database.queryOne("SELECT 1 AS recorded FROM sync_roster_refusals WHERE project_id = ? AND device_id = ?",
                              [.blob(project.bytes), .blob(device.bytes)]) != nil
    }

    /// Remembers that the refusal of `device`'s roster entries for `project` is recorded, so the
    /// audit log says it once, not at every exchange (`exchange-6`).
    func rememberRosterRefusal(by device: DeviceID, of project: ProjectID, at time: Int64) throws {
        try database.query("INSERT OR IGNORE INTO sync_roster_refusals (project_id, device_id, refused_at) VALUES (?, ?, ?)",
                           [.blob(project.bytes), .blob(device.bytes), .integer(time)])
    }

    /// Keeps the keys of devices whose records the project takes now (paired here: both keys known).
    func addSigners(_ entries: [SyncRosterEntry], of project: ProjectID) throws {
        for entry in entries {
            try database.query("INSERT OR IGNORE INTO sync_roster (project_id, device_id, signing_key, noise_key) VALUES (?, ?, ?, ?)",
                               [.blob(project.bytes), .blob(entry.device.bytes), .blob(entry.signingKey), .blob(entry.noiseKey)])
            if database.changes == 0 { try fillNoiseKey(entry, of: project) }
        }
    }

    /// Gives an entry kept without a Noise key (before migration `exchange-2`) the key of `entry`,
    /// when it was kept under the same signing key.
    private func fillNoiseKey(_ entry: SyncRosterEntry, of project: ProjectID) throws {
        try database.query("UPDATE sync_roster SET noise_key = ? WHERE project_id = ? AND device_id = ? AND signing_key = ? AND noise_key IS NULL",
                           [.blob(entry.noiseKey), .blob(project.bytes), .blob(entry.device.bytes), .blob(entry.signingKey)])
    }

    // MARK: Forks

    /// Remembers that `device` forked the project's history; false when it was known already.
    func rememberFork(of device: DeviceID, in project: ProjectID, at time: Int64) throws -> Bool {
        try database.query("INSERT OR IGNORE INTO sync_forks (project_id, device_id, found_at) VALUES (?, ?, ?)",
                           [.blob(project.bytes), .blob(device.bytes), .integer(time)])
        return database.changes > 0
    }

    /// The devices found forking the project's history, and when (for `sync status`).
    func forks(of project: ProjectID) throws -> [SyncProjectFork] {
        try database.query("SELECT device_id, found_at FROM sync_forks WHERE project_id = ? ORDER BY device_id", [.blob(project.bytes)]).map { row in
            SyncProjectFork(device: try DeviceID(bytes: try row.blob("device_id")), foundAt: try row.integer("found_at"))
        }
    }

    // MARK: Projects left

    /// Keeps why `project` was left in an exchange with `device` (the reason `bounded`).
    func setSkipped(_ project: ProjectID, by device: DeviceID, reason: String, at time: Int64) throws {
        try database.query("INSERT OR REPLACE INTO sync_project_skips (device_id, project_id, reason, skipped_at) VALUES (?, ?, ?, ?)",
                           [.blob(device.bytes), .blob(project.bytes), .text(Self.bounded(reason)), .integer(time)])
    }

    /// Why `project` was left in the last exchange with `device` that left it, or nil.
    func skipReason(of project: ProjectID, by device: DeviceID) throws -> String? {
        try database.queryOne("SELECT reason FROM sync_project_skips WHERE device_id = ? AND project_id = ?",
                              [.blob(device.bytes), .blob(project.bytes)]).map { try $0.text("reason") }
    }

    func clearSkipped(_ project: ProjectID, by device: DeviceID) throws {
        try database.query("DELETE FROM sync_project_skips WHERE device_id = ? AND project_id = ?", [.blob(device.bytes), .blob(project.bytes)])
    }

    /// Forgets every project left with `device` whose reason holds `marker` (`SyncInitiator.refusedWholeMark`).
    func clearSkips(by device: DeviceID, saying marker: String) throws {
        try database.query("DELETE FROM sync_project_skips WHERE device_id = ? AND instr(reason, ?) > 0", [.blob(device.bytes), .text(marker)])
    }

    /// The devices whose last exchange left `project`, with why and when.
    func skips(of project: ProjectID) throws -> [SyncProjectSkip] {
        try database.query("SELECT device_id, reason, skipped_at FROM sync_project_skips WHERE project_id = ? ORDER BY device_id",
                           [.blob(project.bytes)]).map { row in
            SyncProjectSkip(peer: try DeviceID(bytes: try row.blob("device_id")), reason: try row.text("reason"), at: try row.integer("skipped_at"))
        }
    }

    // MARK: What peers held

    func peerVector(_ device: DeviceID, project: ProjectID) throws -> [DeviceID: UInt64] {
        guard let blob = try database.queryOne("SELECT vector FROM sync_peer_vectors WHERE device_id = ? AND project_id = ?",
                                               [.blob(device.bytes), .blob(project.bytes)])?.blob("vector") else { return [:] }
        var reader = SyncWireReader(blob)
        return (try? SyncWire.vector(&reader)) ?? [:]
    }

    /// Keeps what `device` held of `project`, as a vector a reader parses (`SyncWire.vector`): a
    /// counter outside 1...2^63-1 is left out, and a vector of more devices than one holds
    /// (`SyncWire.maximumDevices`) is not kept at all (the row is dropped: it is only what
    /// `sync status` counts from), so this writer never makes a row the health check calls damaged.
    func setPeerVector(_ device: DeviceID, project: ProjectID, _ vector: [DeviceID: UInt64]) throws {
        let kept = vector.filter { (1...UInt64(Int64.max)).contains($0.value) }
        guard kept.count <= SyncWire.maximumDevices else {
            try database.query("DELETE FROM sync_peer_vectors WHERE device_id = ? AND project_id = ?", [.blob(device.bytes), .blob(project.bytes)])
            return
        }
        var out: [UInt8] = []
        SyncWire.encode(kept, to: &out)
        try database.query("INSERT OR REPLACE INTO sync_peer_vectors (device_id, project_id, vector) VALUES (?, ?, ?)",
                           [.blob(device.bytes), .blob(project.bytes), .blob(out)])
    }

    /// The projects a peer has synced, with what it held then.
    func peerVectors(_ device: DeviceID) throws -> [ProjectID: [DeviceID: UInt64]] {
        var vectors: [ProjectID: [DeviceID: UInt64]] = [:]
        for row in try database.query("SELECT project_id, vector FROM sync_peer_vectors WHERE device_id = ?", [.blob(device.bytes)]) {
            var reader = SyncWireReader(try row.blob("vector"))
            vectors[try ProjectID(bytes: try row.blob("project_id"))] = (try? SyncWire.vector(&reader)) ?? [:]
        }
        return vectors
    }

    static func optionalInteger(_ value: SQLValue) -> Int64? {
        if case .integer(let number) = value { return number }
        return nil
    }
}
