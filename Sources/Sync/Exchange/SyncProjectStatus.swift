import CryptoVault
import PrivilegedSession
import Writing

/// Whether each project of this vault syncs (SECURITY.md §19.5, §19.9), for `vaultctl sync status`:
/// its stored change records rebuild (`ready`), or they are damaged and the project works local-only
/// until `vaultctl repair --from DEVICE`, with the reason (which record, and the failure's code).
public struct SyncProjectStatus: Sendable, Equatable {
    public let project: ProjectID
    public let privileged: Bool
    /// Whether `privileged` is only the safe default: a damaged row whose compartment nothing here
    /// says (neither the one it names nor one named for the project loads; V-7).
    public var privilegeUnknown = false
    public let state: SyncState
    /// The devices whose last exchange left the project (its failure concerned it alone), and why.
    public var skipped: [SyncProjectSkip] = []
    /// The devices with which the project's records are being refused, either way: how many in the
    /// last exchange, why, and since when (attack review s8, F20).
    public var refused: [SyncProjectRefusal] = []
    /// The devices whose offer of the project is refused here only by a standing choice of the
    /// owner's (`SyncProjectRefusal.declinedCodes`): said, but the project is not out of sync for it.
    public var declined: [SyncProjectRefusal] = []
    /// The own devices that said they destroyed the project (`SyncProjectRefusal.shreddedThere`),
    /// which this vault still holds in `compartment`: said, with what stops it, not out of sync.
    public var shreddedOn: [SyncProjectRefusal] = []
    public var compartment = ""
    /// What of the project this vault's store leaves out, because another project here keeps the
    /// ids (SECURITY.md §19.5; review 17 s9, N-s9-1): not a sync failure, but never silent.
    public var leftOut: [SyncLeftOut] = []
    /// The devices found signing two histories of the project (`sync_forks`, SECURITY.md §19.4;
    /// review 17 s10, N-s10-1 (c)). Said, not a failure: the fork rule keeps the same history on
    /// every device, and the exchange that met the fork refused records (`refused`) until one runs clean.
    public var forks: [SyncProjectFork] = []
    /// This device's records the project's origin refused after making it a viewer, set aside here
    /// (`VaultSync+SetAside`): not a sync failure once said, but never silent.
    public var setAside: VaultSync.SetAside?
    /// A restored or recovered vault's project: the devices it still waits for before it takes
    /// changes (`RestoreWaits`, SECURITY.md §19.10); nil when it waits for none so.
    public var awaited: [RestoredOwnRecords.Awaited]?

    /// Whether the project syncs: its records here rebuild, and no device's last exchange left it or
    /// refused any of its records either way. (A project whose every exchange completes while its
    /// records are refused does not sync, and is never said to.)
    public var syncs: Bool {
        guard case .ready = state else { return false }
        return skipped.isEmpty && refused.isEmpty
    }
}

/// A device found signing two histories of a project (a fork), and when (Unix seconds).
public struct SyncProjectFork: Sendable, Equatable {
    public let device: DeviceID
    public let foundAt: Int64
}

/// Items of a project's records this vault's store leaves out because another project here keeps
/// their ids (SECURITY.md §19.5): of one kind ("node", "block" or "entry"), how many, and that project.
public struct SyncLeftOut: Sendable, Equatable {
    public let kind: String
    public let count: Int
    public let heldBy: ProjectID
}

/// A project left in the last exchange with a device: the reason (a code, then a message that never
/// quotes document text) and when (Unix seconds).
public struct SyncProjectSkip: Sendable, Equatable {
    public let peer: DeviceID
    public let reason: String
    public let at: Int64
}

extension SyncStatus {
    /// Every project, oldest first, with its sync state. The state is found by rebuilding the
    /// project's replica from its stored records (each opened and its signature checked against the
    /// keys the project takes), so a privileged project's records are read inside a privileged
    /// processing session of its compartment (actor `sync`), opened for the check and ended after it,
    /// both recorded, as every read of its records is (SECURITY.md §10).
    ///
    /// While the exchange's own tables are damaged (`exchangeProblem`), every project is local-only
    /// with that reason, and none is rebuilt: its roster cannot be trusted.
    public static func projects(_ vault: UnlockedVault, clock: VaultClock = .system) throws -> [SyncProjectStatus] {
        try projectsWithWholeRows(vault, clock: clock) + (try damagedRows(vault))
    }

    /// The projects whose row of `writing_projects` makes no project (`DamagedProjectRow`): each
    /// local-only, with the columns and what mends it (review 17 s14, N-s14-8, N-s14-9). Privileged
    /// unless its compartment says otherwise: the one its row names, else the one named for it (a
    /// damaged compartment id leaves the project's own compartment whole); unknown when neither loads.
    static func damagedRows(_ vault: UnlockedVault) throws -> [SyncProjectStatus] {
        try vault.transaction { tx in
            let store = WritingStore(tx)
            return try store.damagedProjects().compactMap { damage in
                guard let id = damage.id else { return nil }
                let compartment = damage.compartmentID.flatMap { try? tx.compartment(withID: $0) } ?? store.compartmentNamed(for: id)
                var status = SyncProjectStatus(project: id, privileged: compartment?.isPrivileged ?? true,
                                               state: .localOnly(reason: damage.problem + "; 'vaultctl repair' mends it"))
                status.privilegeUnknown = compartment == nil
                return status
            }
        }
    }

    private static func projectsWithWholeRows(_ vault: UnlockedVault, clock: VaultClock) throws -> [SyncProjectStatus] {
        let damage = try vault.transaction { tx in SyncExchangeHealth.damage(in: tx) }
        if let problem = damage.whole {
            return try vault.transaction { tx in try WritingStore(tx).projects() }.map { project in
                SyncProjectStatus(project: project.id, privileged: project.isPrivileged,
                                  state: .localOnly(reason: "sync state is damaged: \(problem); 'vaultctl repair' mends it"))
            }
        }
        let keys = try vault.deviceKeys()
        let author = SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey)
        let own = try ownDeviceKeys(vault)
        let projects = try vault.transaction { tx in try WritingStore(tx).projects() }
        return try projects.map { project in
            // A project whose exchange rows are damaged: local-only with the reason, its rows not read.
            if let why = damage.reason(for: project.id) {
                return SyncProjectStatus(project: project.id, privileged: project.isPrivileged, state: .localOnly(reason: why))
            }
            var session: PrivilegedProcessingSession?
            if project.isPrivileged {
                session = try PrivilegedProcessingSession.start(vault: vault, compartment: project.compartment, actor: "sync",
                                                                purpose: "sync status")
            }
            defer { try? session?.end() }
            let access: RecordAccess = session.map { .session($0) } ?? .vault
            let (state, skipped, refused, leftOut, forks, setAside, awaited) = try vault.transaction { tx in
                let exchange = SyncExchangeStore(database: tx.database)
                var devices = try exchange.roster(of: project.id)
                devices.merge(own) { kept, _ in kept }
                let sync = VaultSync(WritingStore(tx, access: access, clock: clock), author: author, devices: devices)
                return (try sync.state(of: project.id), try exchange.skips(of: project.id), try exchange.refusals(of: project.id),
                        try sync.leftOutHere(of: project.id), try exchange.forks(of: project.id), try VaultSync.setAside(of: project.id, in: tx.database),
                        (try? RestoredOwnRecords.awaited(project.id, in: tx)) ?? nil)
            }
            let declined = refused.filter { $0.declined(byOwnersChoiceAmong: Set(own.keys)) }
            let shredded = refused.filter(\.shreddedThere)
            var status = SyncProjectStatus(project: project.id, privileged: project.isPrivileged, state: state, skipped: skipped,
                                           refused: refused.filter { !declined.contains($0) && !shredded.contains($0) })
            status.declined = declined
            status.shreddedOn = shredded
            status.compartment = project.compartment.name
            status.leftOut = leftOut
            status.forks = forks
            status.setAside = setAside
            status.awaited = awaited
            return status
        }
    }

    /// Every project's refusals kept (`SyncProjectRefusal`), those of projects this vault does not
    /// hold included (an offer refused here): by project, device and side. Empty while the
    /// exchange's tables are damaged (`exchangeProblem`): they are not read as if whole.
    public static func refusals(_ vault: UnlockedVault) throws -> [SyncProjectRefusal] {
        try vault.transaction { tx in
            let damage = SyncExchangeHealth.damage(in: tx)
            guard damage.whole == nil else { return [] }
            // A damaged project's refusal rows are not read as if whole (`projects` says why).
            return try SyncExchangeStore(database: tx.database).refusals(skipping: Set(damage.projects.keys))
        }
    }

    /// What is wrong with the exchange's own tables (SECURITY.md §19.9, "Damaged exchange state"),
    /// or nil when they are whole: then sync with every device is off until `vaultctl repair`.
    public static func exchangeProblem(_ vault: UnlockedVault) throws -> String? {
        try vault.transaction { tx in SyncExchangeHealth.problem(in: tx) }
    }

    /// This device's and the owner's own devices' signing keys: whose records every project takes.
    static func ownDeviceKeys(_ vault: UnlockedVault) throws -> [DeviceID: [UInt8]] {
        let profile = try vault.deviceKeys().profile
        var keys = [profile.deviceID: profile.signingPublicKey]
        for pairing in try vault.vault.familyPairings() where try vault.vault.trust(of: pairing.peer.deviceID) == .mine {
            keys[pairing.peer.deviceID] = pairing.peer.signingPublicKey
        }
        return keys
    }
}
