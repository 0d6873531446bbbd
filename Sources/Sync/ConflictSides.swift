import CryptoVault
import Writing

/// Whose side of a sync conflict the document shows and whose its branch holds, as the records
/// say (merge-design §7): `sync now` and `conflicts` name them, so the owner of the device whose
/// paragraph changed under them learns why, and where their words are.
public struct ConflictSides: Sendable, Equatable {
    /// The device whose write the document kept, and the one whose write the branch holds; nil
    /// when the records do not say (a conflict of a rule that named it otherwise).
    public let kept: DeviceID?
    public let branched: DeviceID?
}

extension SyncReplica {
    /// The names that hold the losing write's record hash (SECURITY.md §19.3): `SHA-256(label ||
    /// 0x00 || block || hash)[:16]`, by the block rule, and by the earlier rule's register conflicts.
    static let losingWriteLabels = ["SealedVault block conflict v2", "SealedVault sync conflict v1"]
    /// A removal conflict's label (SECURITY.md §19.3), with the block and the removal's record hash.
    static let removalLabel = "SealedVault removal conflict v1"

    /// Each conflict's sides, by its name: the losing write is the record of the block whose hash
    /// its name holds; the kept side is the highest-ranked write of the block concurrent with it
    /// (the fold keeps the highest-ranked head, §19.3). A removal conflict's name holds the
    /// removal's record instead: its side is that removal's device, and the kept side the device of
    /// the block's highest-ranked present write concurrent with it (the winning side, §19.3).
    func sides(of conflicts: [SyncConflict]) -> [BranchID: ConflictSides] {
        let wanted = Set(conflicts.map(\.block)), documents = Set(conflicts.map(\.document))
        var writers: [BlockID: [Int]] = [:], removals: [NodeID: [Int]] = [:]
        for (entry, held) in history.entries.enumerated() {
            for case .block(_, let block, _) in held.record.operations where wanted.contains(block) && writers[block]?.last != entry {
                writers[block, default: []].append(entry)
            }
            for case .node(let node, .removed) in held.record.operations where documents.contains(node) { removals[node, default: []].append(entry) }
        }
        var sides: [BranchID: ConflictSides] = [:]
        for conflict in conflicts {
            let entries = writers[conflict.block] ?? []
            if let removal = (removals[conflict.document] ?? []).first(where: { removes(conflict, entry: $0) }) {
                let kept = entries.filter { writesPresent(conflict.block, in: $0) && concurrent($0, removal) }.max { history.ranksBelow($0, $1) }
                sides[conflict.branch] = ConflictSides(kept: kept.map { history.entries[$0].record.device },
                                                       branched: history.entries[removal].record.device)
                continue
            }
            let losing = entries.first { entry in
                Self.losingWriteLabels.contains { SyncConflict.branchID($0, conflict.block.bytes + history.entries[entry].record.hash) == conflict.branch }
            }
            let kept = losing.flatMap { losing in entries.filter { concurrent($0, losing) }.max { history.ranksBelow($0, $1) } }
            sides[conflict.branch] = ConflictSides(kept: kept.map { history.entries[$0].record.device },
                                                   branched: losing.map { history.entries[$0].record.device })
        }
        return sides
    }

    /// Whether `conflict` is the removal conflict of its block and record `entry`'s removal.
    private func removes(_ conflict: SyncConflict, entry: Int) -> Bool {
        SyncConflict.branchID(Self.removalLabel, conflict.block.bytes + history.entries[entry].record.hash) == conflict.branch
    }

    /// Whether record `entry` writes `block` present.
    private func writesPresent(_ block: BlockID, in entry: Int) -> Bool {
        history.entries[entry].record.operations.contains { operation in
            guard case .block(_, let written, let value) = operation, written == block else { return false }
            return value != .deleted
        }
    }

    private func concurrent(_ a: Int, _ b: Int) -> Bool { !history.precedes(a, b) && !history.precedes(b, a) }
}

extension VaultSync {
    /// The sides of the sync conflicts whose branches `projectID` holds, by the branch's id here.
    public func conflictSides(in projectID: ProjectID) throws -> [BranchID: ConflictSides] {
        let project = try store.project(projectID)
        var replica = try replica(of: projectID)
        let names = try conflictNames(in: project)
        let sides = replica.sides(of: replica.conflicts())
        return names.compactMapValues { sides[$0] }
    }
}

extension SyncStatus {
    /// The sides of `project`'s sync conflicts, read in `store`'s transaction as `overruledDecisions`
    /// is; none when its sync state is damaged (`sync status` says why).
    public static func conflictSides(of project: ProjectID, in store: WritingStore, keys: SyncReadKeys) throws -> [BranchID: ConflictSides] {
        let sync = try keys.sync(of: project, in: store)
        do { return try sync.conflictSides(in: project) } catch let error as SyncError where error.code == .damagedSyncState { return [:] }
    }
}
