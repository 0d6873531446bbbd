import CryptoVault
import Writing

/// A decision on a branch that the replay of every device's decisions overruled (SECURITY.md
/// §19.3): made on one device (this one, say) while another device decided the branch otherwise,
/// and kept in the history, for `vaultctl conflicts` to show the owner what was decided elsewhere.
public struct OverruledDecision: Sendable, Equatable {
    /// The branch as this vault names it, and its document.
    public let branch: BranchID
    public let document: NodeID
    public let decision: BranchDecision
    public let decidedAt: Int64
    /// The device whose record carried the overruled decision.
    public let device: DeviceID
    /// The branch's state as every device settles it, and the device whose decision set it last.
    public let state: BranchState
    public let settledBy: DeviceID?
}

extension BranchDecision {
    /// The word the branch commands use for it.
    public var name: String {
        switch self {
        case .adopt: "adopt"
        case .discard: "discard"
        case .revert: "revert"
        }
    }
}

extension VaultSync {
    /// Every overruled decision on the branches of `projectID`, branch by branch in the store's
    /// order, each branch's in the order replayed.
    public func overruledDecisions(in projectID: ProjectID) throws -> [OverruledDecision] {
        let project = try store.project(projectID)
        let replica = try replica(of: projectID)
        let names = try conflictNames(in: project)
        return try store.branchStatuses(in: projectID).flatMap { status -> [OverruledDecision] in
            let settled = replica.settled(names[status.id] ?? status.id)
            let last = settled.decisions.last(where: \.applied)?.device
            // A decision agreeing with the applied one (the same, made at once on another device) is not overruled.
            return settled.decisions.filter(\.isOverruled).map {
                OverruledDecision(branch: status.id, document: status.document, decision: $0.decision.decision, decidedAt: $0.decision.decidedAt,
                                  device: $0.device, state: settled.state, settledBy: last)
            }
        }
    }
}

/// This device's signing key and the owner's own devices' keys, read from the vault before a
/// transaction that reads sync state (`SyncStatus.overruledDecisions`) starts.
public struct SyncReadKeys: Sendable {
    let author: SyncAuthor
    let own: [DeviceID: [UInt8]]

    public init(_ vault: UnlockedVault) throws {
        let keys = try vault.deviceKeys()
        author = SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey)
        own = try SyncStatus.ownDeviceKeys(vault)
    }

    /// The sync of `project` in `store`'s transaction, with the keys of the project's roster and this owner's own devices.
    func sync(of project: ProjectID, in store: WritingStore) throws -> VaultSync {
        var devices = try SyncExchangeStore(database: store.transaction.database).roster(of: project)
        devices.merge(own) { kept, _ in kept }
        return VaultSync(store, author: author, devices: devices)
    }
}

extension SyncStatus {
    /// The overruled decisions of `project`, read in `store`'s transaction (a privileged project's
    /// with the session `store` reads it through), with the keys of the project's roster and this
    /// owner's own devices; none when its sync state is damaged (`sync status` says why).
    public static func overruledDecisions(of project: ProjectID, in store: WritingStore, keys: SyncReadKeys) throws -> [OverruledDecision] {
        let sync = try keys.sync(of: project, in: store)
        do { return try sync.overruledDecisions(in: project) } catch let error as SyncError where error.code == .damagedSyncState { return [] }
    }
}
