import CryptoVault
import Writing

/// The devices a restored or recovered vault's project still waits for (`sync_restore_waits`,
/// migration `restore-wait-1`; SECURITY.md §19.10, step 3). The backup rewound this device's records
/// of the project: any device that took one signed after the backup would see this device's next
/// record, which reuses its number with other content, as a fork and refuse this device's records
/// of the project for good. So the project waits, view-only, for a completed pull from EVERY device
/// that may hold them: each of the owner's own devices the backup trusted (review 17 s12, N-s12-3:
/// the first own device's pull ended the wait while a third held the later records), and, for a
/// project shared with someone else's device or from it, that device (reviewer 13, N-s13-3: the
/// restored origin forked with its colleague). A device revoked, demoted by the owner, or no longer
/// sharing the project stops being awaited; `repair --write-anyway` ends the wait whatever remains.
/// The wait itself is the project's `OwnRecordFloor.untilOwnPull` row; these rows say for whom.
/// Read and written only here.
struct RestoreWaits {
    let database: Database

    static let table = "sync_restore_waits"

    /// A row naming no device: the wait of a backup that trusts none of the owner's devices, which a
    /// completed pull from any device trusted `mine` (paired again after the restore) ends (review 17
    /// s11, N-s11-1's remaining case).
    static let anyOwnDevice = [UInt8](repeating: 0, count: 16)

    struct Row {
        let device: DeviceID?
        /// nil: the row does not read as one a writer makes (a damaged row: it waits until the owner
        /// says otherwise, never lifts the wait by itself).
        let kind: RestoredOwnRecords.AwaitedKind?
    }

    func rows(of project: ProjectID) throws -> [Row] {
        try database.query("SELECT device_id, kind FROM sync_restore_waits WHERE project_id = ? ORDER BY rowid", [.blob(project.bytes)]).map { row in
            let kind = (try? row.text("kind")).flatMap(RestoredOwnRecords.AwaitedKind.init(rawValue:))
            let bytes = try? row.blob("device_id")
            let device = bytes.flatMap { $0 == Self.anyOwnDevice ? nil : try? DeviceID(bytes: $0) }
            guard let kind, kind == .anyOwn || device != nil else { return Row(device: nil, kind: nil) }
            // A device that is not paired: a revoke deletes its rows (`forget(device:)`), so this id is
            // damaged (a flipped bit), and the device it was may still hold the project's later records.
            if kind != .anyOwn, let device, try FamilyPairing.stored(deviceID: device, in: database) == nil { return Row(device: nil, kind: nil) }
            return Row(device: kind == .anyOwn ? nil : device, kind: kind)
        }
    }

    /// The projects that have rows, in id order (a damaged project id left out).
    func projects() throws -> [ProjectID] {
        try database.query("SELECT DISTINCT project_id FROM sync_restore_waits ORDER BY project_id").compactMap { row in
            try? ProjectID(bytes: try row.blob("project_id"))
        }
    }

    func add(_ device: DeviceID?, kind: RestoredOwnRecords.AwaitedKind, of project: ProjectID, at time: Int64) throws {
        try database.query("INSERT OR IGNORE INTO sync_restore_waits (project_id, device_id, kind, set_at) VALUES (?, ?, ?, ?)",
                           [.blob(project.bytes), .blob(device?.bytes ?? Self.anyOwnDevice), .text(kind.rawValue), .integer(time)])
    }

    /// A completed pull from `device`: it is no longer awaited, nor, when it is the owner's, the
    /// row that any own device ends.
    func pulled(from device: DeviceID, mine: Bool, of project: ProjectID) throws {
        try database.query("DELETE FROM sync_restore_waits WHERE project_id = ? AND device_id = ?", [.blob(project.bytes), .blob(device.bytes)])
        if mine {
            try database.query("DELETE FROM sync_restore_waits WHERE project_id = ? AND kind = ?",
                               [.blob(project.bytes), .text(RestoredOwnRecords.AwaitedKind.anyOwn.rawValue)])
        }
    }

    func clear(_ project: ProjectID) throws {
        try database.query("DELETE FROM sync_restore_waits WHERE project_id = ?", [.blob(project.bytes)])
    }
}

extension RestoredOwnRecords {
    /// Why a device is awaited: one of the owner's own devices the backup trusted (or one trusted
    /// `mine` since), someone else's device the project is shared with or from, or any own device
    /// (the backup trusted none).
    public enum AwaitedKind: String, Sendable {
        case own, shared, anyOwn = "any-own"
    }

    /// A device a project still waits for; `device` nil: any own device (`anyOwn`), or a damaged
    /// row (`kind` nil).
    public struct Awaited: Sendable, Equatable {
        public let device: DeviceID?
        public let kind: AwaitedKind?
    }

    /// Marks `project` as waiting for `own` (the backup's own devices) and, unless it is privileged,
    /// for the devices of someone else's it is shared with or from; for any own device when the
    /// backup trusts none. In the restore's transaction.
    static func markAwaited(_ project: WritingProject, own: [DeviceID], in tx: VaultTransaction, at time: Int64) throws {
        let waits = RestoreWaits(database: tx.database)
        if own.isEmpty { try waits.add(nil, kind: .anyOwn, of: project.id, at: time) }
        for device in own { try waits.add(device, kind: .own, of: project.id, at: time) }
        guard !project.isPrivileged else { return }
        let exchange = SyncExchangeStore(database: tx.database)
        var shared = try exchange.sharers(of: project.compartment.id)
        if let origin = try exchange.origin(of: project.id), origin.access != .mine { shared.append(origin.device) }
        for device in shared where !own.contains(device) {
            guard try FamilyPairing.stored(deviceID: device, in: tx.database) != nil else { continue }
            try waits.add(device, kind: .shared, of: project.id, at: time)
        }
    }

    /// The devices `project` still waits for, in the order they were marked: nil when it waits for
    /// none (or its wait is a repair's, or one made before these rows: any own device's pull ends it).
    /// A device revoked, demoted, or no longer sharing the project is not listed.
    static func awaited(_ project: ProjectID, in tx: VaultTransaction) throws -> [Awaited]? {
        guard try OwnRecordFloor(database: tx.database).floor(of: project) == OwnRecordFloor.untilOwnPull else { return nil }
        let waits = RestoreWaits(database: tx.database)
        let rows = try waits.rows(of: project)
        // A row whose project id is damaged may have been this project's: it counts here, unnamed,
        // until `vaultctl repair` (`RestoreWaits+Damage`).
        let orphans = try waits.orphans()
        guard !rows.isEmpty || orphans > 0 else { return nil }
        return try rows.filter { try isLive($0, of: project, in: tx) }.map { Awaited(device: $0.device, kind: $0.kind) }
            + Array(repeating: Awaited(device: nil, kind: nil), count: orphans)
    }

    /// Whether `row` still names a device that may hold this device's records of the project and
    /// would refuse the next one: an own device still paired and not demoted (held after the restore
    /// until the owner confirms it: it still is awaited); someone else's device still paired that the
    /// project is still shared with, or from (its last answer did not say `notShared`).
    private static func isLive(_ row: RestoreWaits.Row, of project: ProjectID, in tx: VaultTransaction) throws -> Bool {
        guard let kind = row.kind, kind != .anyOwn, let device = row.device else { return true }
        guard try FamilyPairing.stored(deviceID: device, in: tx.database) != nil else { return false }
        let exchange = SyncExchangeStore(database: tx.database)
        switch kind {
        case .anyOwn: return true
        case .own: return try exchange.demotion(of: device) == nil
        case .shared:
            guard let held = try? WritingStore(tx).project(project) else { return true }
            if try exchange.share(of: held.compartment.id, with: device) != nil { return true }
            let notShared = "\(SyncExchangeErrorCode.notShared.rawValue):"
            return try exchange.origin(of: project)?.device == device && exchange.skipReason(of: project, by: device)?.hasPrefix(notShared) != true
        }
    }

    /// A completed pull of `project` from `peer` (`mine`: trusted as the owner's): `peer` is no longer
    /// awaited; when no device is, the wait ends and the project takes changes again unless
    /// `viewOnly`. A wait without rows (made before them, or by a repair's mend) ends with a pull
    /// from any own device. Returns whether it ended.
    static func pullCompleted(_ project: ProjectID, from peer: DeviceID, mine: Bool, viewOnly: Bool, in tx: VaultTransaction) throws -> Bool {
        guard try OwnRecordFloor(database: tx.database).floor(of: project) == OwnRecordFloor.untilOwnPull else { return false }
        let waits = RestoreWaits(database: tx.database)
        if try waits.rows(of: project).isEmpty && waits.orphans() == 0 {
            guard mine else { return false }
        } else {
            try waits.pulled(from: peer, mine: mine, of: project)
            guard try awaited(project, in: tx)?.isEmpty ?? true else { return false }
        }
        try end(project, viewOnly: viewOnly, from: peer.hex, in: tx)
        return true
    }

    /// Ends the wait of every project none of whose awaited devices is still awaited (each revoked,
    /// demoted or no longer sharing it), in the caller's transaction: what a revoke, a demotion or a
    /// share's end calls. Returns the projects that take changes again.
    @discardableResult
    public static func settle(in tx: VaultTransaction) throws -> [ProjectID] {
        var ended: [ProjectID] = []
        for project in try RestoreWaits(database: tx.database).projects() {
            // A damaged floor row is the project's damage (`DamagedRows`): it is not settled here, and
            // never stops the revoke or exchange that settles the others.
            guard let awaited = try? awaited(project, in: tx), awaited.isEmpty else { continue }
            try end(project, viewOnly: try SyncExchangeStore(database: tx.database).origin(of: project)?.access == .viewer, from: "owner", in: tx)
            ended.append(project)
        }
        return ended
    }

    /// A device the owner trusts `mine` from now on (paired, or confirmed after the restore) is
    /// awaited too by every project waiting for named devices: it may hold this device's records.
    static func awaitOwnDevice(_ device: DeviceID, in tx: VaultTransaction, at time: Int64) throws {
        let waits = RestoreWaits(database: tx.database)
        for project in try waits.projects() where try OwnRecordFloor(database: tx.database).floor(of: project) == OwnRecordFloor.untilOwnPull {
            try waits.add(device, kind: .own, of: project, at: time)
        }
    }

    static func end(_ project: ProjectID, viewOnly: Bool, from: String, in tx: VaultTransaction) throws {
        // The mark first: a project this store no longer holds (destroyed) just loses its rows.
        if !viewOnly, (try? WritingStore(tx).project(project)) != nil {
            try WritingStore(tx, access: .vault).setSyncedViewOnly(project, false, from: from)
        }
        try OwnRecordFloor(database: tx.database).clear(project)
        try RestoreWaits(database: tx.database).clear(project)
    }

    /// Every project that waits for named devices, with the devices still awaited (`awaited`).
    public static func awaited(in vault: UnlockedVault) throws -> [ProjectID: [Awaited]] {
        try vault.transaction { tx in
            var all: [ProjectID: [Awaited]] = [:]
            for project in try RestoreWaits(database: tx.database).projects() { all[project] = try awaited(project, in: tx) }
            return all
        }
    }

    /// The devices `project` still waits for (`awaited`), or nil.
    public static func awaited(_ project: ProjectID, in vault: UnlockedVault) throws -> [Awaited]? {
        try vault.transaction { tx in try awaited(project, in: tx) }
    }

    /// Drops `project`'s rows: the owner let it write (`repair --write-anyway`).
    static func forget(_ project: ProjectID, in tx: VaultTransaction) throws {
        try RestoreWaits(database: tx.database).clear(project)
    }
}
