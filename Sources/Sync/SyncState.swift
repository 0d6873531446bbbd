import Writing

/// Whether a project syncs (SECURITY.md §19.5): its stored change records rebuild, or they are
/// damaged and the project works local-only (its documents read and written as ever, nothing sent
/// or received) until it is repaired, with the reason said.
public enum SyncState: Sendable, Equatable {
    /// The records rebuild: this many are held.
    case ready(records: Int)
    /// The records do not rebuild: why (which record, and the failure's code; never text).
    case localOnly(reason: String)

    public var isLocalOnly: Bool {
        if case .localOnly = self { return true }
        return false
    }
}

extension VaultSync {
    /// The project's sync state: local-only when its stored records do not rebuild, or when what
    /// every exchange opens of it here does not open (`checkOpens`). A privileged project's records
    /// are read only in a session of its compartment: without one this throws
    /// `.privilegedSessionRequired`, which is not damage.
    public func state(of projectID: ProjectID) throws -> SyncState {
        do {
            let records = try replica(of: projectID).recordCount
            try checkOpens(projectID)
            return .ready(records: records)
        } catch let error as SyncError where error.code == .damagedSyncState || error.code == .damagedProject {
            return .localOnly(reason: error.message)
        }
    }
}
