import CryptoVault
import Foundation
import Sync
import Writing

/// What `vaultctl conflicts` and `sync now` say of each open sync conflict (merge-design §7):
/// which device's side the document kept and which branch holds the other, so the owner of the
/// device whose paragraph changed learns why, and where their words are:
/// "Med, block 1: kept desk's; yours is branch 3".
enum ConflictSidesText {
    /// One open sync conflict: its document, branch and number in the document's list, the
    /// block's 1-based place in the document (nil when it holds the block no more), and its sides.
    struct Item {
        let document: BinderNode
        let number: Int
        let branch: Branch
        let block: Int?
        let sides: ConflictSides?

        func line(_ names: ConflictsCommand.DeviceNames) -> String {
            let place = block.map { "block \($0)" } ?? "a block it no longer holds"
            let kept = sides?.kept.map { Self.whose($0, names) } ?? "one side"
            let other = sides?.branched.map { Self.whose($0, names) } ?? "the other side"
            return "\(document.title), \(place): kept \(kept); \(other) is branch \(number)"
        }

        func json(_ names: ConflictsCommand.DeviceNames) -> [String: Any] {
            ["block": block as Any? ?? NSNull(), "kept_by": sides?.kept?.hex ?? NSNull(), "branch_by": sides?.branched?.hex ?? NSNull(),
             "kept_here": sides?.kept.map { $0 == names.this } as Any? ?? NSNull()]
        }

        /// "yours" for this device, "desk's" for a paired one, "device 1a2b…'s" for another.
        static func whose(_ device: DeviceID, _ names: ConflictsCommand.DeviceNames) -> String {
            device == names.this ? "yours" : "\(names.paired[device] ?? "device \(device.fingerprint)")'s"
        }
    }

    /// The open sync conflicts of `project` (those whose branch was made at `since` or later, when
    /// given), with their sides as the records say.
    static func items(of project: WritingProject, in store: WritingStore, keys: SyncReadKeys, since: Int64? = nil) throws -> [Item] {
        let open = try ConflictsCommand.openConflicts(of: project, in: store).filter { item in since.map { item.branch.createdAt >= $0 } ?? true }
        guard !open.isEmpty else { return [] }
        let sides = try SyncStatus.conflictSides(of: project.id, in: store, keys: keys)
        var contents: [NodeID: [BlockID]] = [:]
        return try open.map { item in
            if contents[item.document.id] == nil { contents[item.document.id] = try store.documentContent(of: item.document.id, in: project.id).blocks.map(\.id) }
            let block = WritingStore.conflictBlock(named: item.branch.provenance)
            let place = block.flatMap { id in contents[item.document.id]?.firstIndex(of: id) }.map { $0 + 1 }
            return Item(document: item.document, number: item.number, branch: item.branch, block: place, sides: sides[item.branch.id])
        }
    }

    /// What `sync now` adds to its report: each conflict the run kept as a branch, in the projects
    /// that made some (a privileged project it cannot read without a session is left to
    /// `vaultctl conflicts --purpose`).
    static func madeLines(_ report: SyncRunReport, since: Int64, in vault: UnlockedVault) throws -> [String] {
        let made = Set(report.projects.filter { $0.branchesMade > 0 }.map(\.project))
        guard !made.isEmpty else { return [] }
        let keys = try SyncReadKeys(vault), names = try ConflictsCommand.DeviceNames(vault)
        return try vault.transaction { tx in
            let store = WritingStore(tx)
            return try store.projects().filter { made.contains($0.id) && !$0.isPrivileged }.flatMap { project in
                try items(of: project, in: store, keys: keys, since: since).map { "  " + $0.line(names) }
            }
        }
    }
}

extension ConflictSidesText {
    /// The blocks of `document` whose sync conflict is open (its branch neither adopted nor discarded).
    static func openConflictBlocks(of document: NodeID, in project: ProjectID, _ store: WritingStore) throws -> Set<BlockID> {
        Set(try store.branches(of: document, in: project).filter { $0.kind == .syncConflict && $0.state == .open }
            .compactMap { WritingStore.conflictBlock(named: $0.provenance) })
    }

    /// The 1-based places of the blocks of `open` that a write from `before` to `after` changed or
    /// took out (its place before), for `doc write`'s notice: a hand edit decides nothing, so the
    /// branch stays open until it is adopted or discarded (merge-design §3).
    static func written(_ open: Set<BlockID>, before: [Block], after: [Block]) -> [Int] {
        open.compactMap { id -> Int? in
            guard let old = before.firstIndex(where: { $0.id == id }) else { return nil }
            guard let new = after.firstIndex(where: { $0.id == id }) else { return old + 1 }
            return before[old] == after[new] ? nil : new + 1
        }.sorted()
    }
}
