import CryptoVault
import Writing

/// Sync with one paired device as this vault sees it (SECURITY.md §19.9), for `vaultctl sync status`
/// and the console: `SyncStatus.read(vault)`.
public struct SyncPeerStatus: Sendable, Equatable {
    public let device: DeviceID
    public let name: String
    /// "mine", "other", or nil for an older pairing (treated as someone else's).
    public let trust: String?
    public let paused: Bool
    /// The last exchange that completed, and the last one tried (Unix seconds).
    public let lastSyncAt: Int64?
    public let lastAttemptAt: Int64?
    /// The code of the last attempt's error, nil when it completed.
    public let lastError: String?
    public let recordsSent: Int64
    public let recordsReceived: Int64
    /// Records this vault holds that the device did not hold at the last exchange (edits not yet
    /// committed as records are not counted: the next exchange commits them first).
    public let pending: Int64
    /// The projects that do not sync with the device: its last exchange left them, or their records
    /// are being refused with it either way (attack review s8, F20; `SyncProjectStatus` says why),
    /// not an offer of it declined by the owner's standing choice (`SyncProjectRefusal.declinedCodes`).
    public let notInSync: [ProjectID]
    /// Why sync with the device is off: its rows of the exchange's tables are damaged
    /// (`SyncExchangeDamage`) until `vaultctl repair` mends them; nil when they are whole.
    public var damaged: String?
}

public enum SyncStatus {
    /// Every paired device, in pairing order, with its sync state.
    public static func read(_ vault: UnlockedVault) throws -> [SyncPeerStatus] {
        let pairings = try vault.vault.familyPairings()
        let trusts = try pairings.map { try vault.vault.trust(of: $0.peer.deviceID)?.rawValue }
        return try vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            let held = try VaultSync.heldVectors(in: tx.database)
            let damage = SyncExchangeHealth.damage(in: tx)
            return try zip(pairings, trusts).map { pairing, trust in
                let device = pairing.peer.deviceID
                // A device whose row is damaged: its row is not read as if whole; why sync is off is said.
                let damaged = damage.reason(for: device)
                let row = damaged == nil ? try store.peer(device) ?? SyncExchangeStore.PeerRow() : SyncExchangeStore.PeerRow()
                var status = SyncPeerStatus(device: device, name: pairing.peer.name, trust: trust, paused: row.paused,
                                            lastSyncAt: row.lastSyncAt, lastAttemptAt: row.lastAttemptAt, lastError: row.lastError,
                                            recordsSent: row.recordsSent, recordsReceived: row.recordsReceived,
                                            pending: try pending(of: device, held: held, store: store, skipping: Set(damage.projects.keys)),
                                            notInSync: try store.projectsNotInSync(with: device, mine: trust == DeviceTrust.mine.rawValue))
                status.damaged = damaged
                return status
            }
        }
    }

    /// Records held here past what the device held at its last exchange, over the projects it synced.
    static func pending(of device: DeviceID, held: [ProjectID: [DeviceID: UInt64]], store: SyncExchangeStore,
                        skipping damaged: Set<ProjectID> = []) throws -> Int64 {
        var count: Int64 = 0
        for (project, peerHeld) in try store.peerVectors(device) where !damaged.contains(project) {
            for (author, counter) in held[project] ?? [:] {
                count += Int64(counter > (peerHeld[author] ?? 0) ? counter - (peerHeld[author] ?? 0) : 0)
            }
        }
        return count
    }
}

/// Pausing and resuming sync with a device, and the projects shared with devices for sync.
public enum SyncControl {
    /// Pauses (or resumes) sync with `device` on this side: `sync now` refuses it and its requests are
    /// refused; every record stays. Returns whether anything changed; a change is recorded.
    @discardableResult
    public static func setPaused(_ paused: Bool, device: DeviceID, in vault: UnlockedVault) throws -> Bool {
        try vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            guard (try store.peer(device)?.paused ?? false) != paused else { return false }
            try store.setPaused(device, paused)
            try tx.record(paused ? .syncPause : .syncResume, details: [.init("peer", device.hex)])
            return true
        }
    }

    /// Whether sync with `device` is paused on this side (`setPaused`).
    public static func isPaused(_ device: DeviceID, in vault: UnlockedVault) throws -> Bool {
        try vault.transaction { tx in try SyncExchangeStore(database: tx.database).peer(device)?.paused ?? false }
    }

    /// A compartment share grant the device accepted: the project in that compartment (if any)
    /// now syncs with the device in that role. Recorded as `sync.share`. A project someone else
    /// shared with this vault is refused (`requireOwner`): only its owner shares it.
    public static func shared(_ compartment: VaultCompartment, with device: DeviceID, role: ShareRole, in vault: UnlockedVault) throws {
        try requireOwner(of: compartment, sharingWith: device, role: role, in: vault)
        try vault.transaction { tx in
            try SyncExchangeStore(database: tx.database).setShare(of: compartment.id, with: device, role: role, at: VaultClock.system.now())
            try tx.record(.syncShare, compartment: compartment.id, details: [.init("peer", device.hex), .init("role", role.rawValue)])
        }
    }

    /// The share revoked: the device's next sync request for the project is refused.
    public static func revoked(_ compartment: VaultCompartment, from device: DeviceID, in vault: UnlockedVault) throws {
        try vault.transaction { tx in
            try SyncExchangeStore(database: tx.database).revokeShare(of: compartment.id, with: device, at: VaultClock.system.now())
            try tx.record(.syncShareRevoke, compartment: compartment.id, details: [.init("peer", device.hex)])
            // A restored project no longer waits for a device it is no longer shared with (SECURITY.md §19.10).
            try RestoredOwnRecords.settle(in: tx)
        }
    }
}
