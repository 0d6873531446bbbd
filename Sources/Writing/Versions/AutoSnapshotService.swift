import CryptoVault

/// An automatic snapshot the service took, and the rules that asked for it.
public struct AutoSnapshot: Sendable, Equatable {
    public let snapshot: Snapshot
    public let triggers: Set<AutoSnapshotTrigger>
}

/// Takes automatic snapshots as a writer works (the seed's rule, decided by `AutoSnapshotPolicy`):
/// after every 3 minutes of active editing, every 500 characters of change and every switch away
/// from a document that changed. The editor tells it of each edit after the edit is stored, and of
/// each switch; the service snapshots the document concerned when the policy says one is due, then
/// starts the policy's counters again. The clock is injected, so tests move time by hand.
///
/// One service follows one writer: the document being edited is the one of the last edit or switch.
public final class AutoSnapshotService {
    /// Takes an automatic snapshot of one document (in the appliance: a vault transaction and
    /// `WritingStore.createSnapshot`).
    public typealias Take = (_ document: NodeID, _ project: ProjectID) throws -> Snapshot

    private var policy: AutoSnapshotPolicy
    private let take: Take
    /// The document being edited, and its project.
    public private(set) var current: (document: NodeID, project: ProjectID)?

    /// The policy's counters, to keep them until the writer's next edit (`WritingStore` stores them).
    public var state: AutoSnapshotState { policy.state }

    /// A service for a writer whose document being edited is `current` with the policy's counters at
    /// `state` (as a store kept them), or a new writer's.
    public init(clock: VaultClock = .system, current: (document: NodeID, project: ProjectID)? = nil,
                state: AutoSnapshotState = AutoSnapshotState(), take: @escaping Take) {
        policy = AutoSnapshotPolicy(clock: clock, state: state)
        self.current = current
        self.take = take
    }

    /// A service over `vault`'s writing store, each snapshot in a transaction of its own (a
    /// privileged project's read through `access`, its session).
    public convenience init(vault: UnlockedVault, access: RecordAccess = .vault, clock: VaultClock = .system) {
        self.init(clock: clock) { document, project in
            try vault.transaction { tx in try WritingStore(tx, access: access).createSnapshot(of: document, in: project) }
        }
    }

    /// The writer stored an edit of `document` that inserted and deleted these many characters.
    /// An edit of another document than the current one is a switch first. Returns the snapshots
    /// taken: the left document's on a switch, then this one's if it is due.
    @discardableResult
    public func edited(_ document: NodeID, in project: ProjectID, inserted: Int, deleted: Int) throws -> [AutoSnapshot] {
        var taken = try switched(to: document, in: project).map { [$0] } ?? []
        let due = policy.recordEdit(inserted: inserted, deleted: deleted)
        if !due.isEmpty { taken.append(try snapshot(document, project, due)) }
        return taken
    }

    /// The writer moved to `document` (opening it is enough): the document left is snapshotted if it
    /// changed since its last snapshot. Moving to the current document is no switch.
    @discardableResult
    public func switched(to document: NodeID, in project: ProjectID) throws -> AutoSnapshot? {
        guard let left = current else {
            current = (document, project)
            return nil
        }
        guard left.document != document || left.project != project else { return nil }
        current = (document, project)
        let due = policy.recordDocumentSwitch()
        return due.isEmpty ? nil : try takeSnapshot(left.document, left.project, due)
    }

    /// A titled snapshot of the current document was taken: it covers what came before, as an
    /// automatic one would.
    public func titledSnapshotTaken() {
        policy.snapshotTaken()
    }

    private func snapshot(_ document: NodeID, _ project: ProjectID, _ due: Set<AutoSnapshotTrigger>) throws -> AutoSnapshot {
        let taken = try takeSnapshot(document, project, due)
        policy.snapshotTaken()
        return taken
    }

    private func takeSnapshot(_ document: NodeID, _ project: ProjectID, _ due: Set<AutoSnapshotTrigger>) throws -> AutoSnapshot {
        AutoSnapshot(snapshot: try take(document, project), triggers: due)
    }
}
