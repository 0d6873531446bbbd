import CryptoVault
import Writing

/// A conflict the records make, with the record whose view of the document its branch proposes
/// (SECURITY.md §19.3): the losing side's record (the removal's, for a removal conflict).
struct HeldConflict: Sendable {
    let conflict: SyncConflict
    /// The history entry of that record.
    let viewer: Int
}

extension SyncReplica {
    /// What a conflict's syncConflict branch proposes (SECURITY.md §19.3, merge-design §2): the
    /// document as this replica shows it with the conflict's block replaced by the losing side. A
    /// losing side that deleted the block leaves it out, unless no other block is left: then the
    /// block as the losing record's past showed it (for a removal, as the document shows it), so a
    /// branch is never empty. What every device agrees on is the conflict's block and losing value;
    /// the other blocks are the document as shown when the branch is made.
    public mutating func proposal(for conflict: SyncConflict) -> DocumentContent {
        // A block over the store's bound in pieces, as a document shows it (`BlockOverflow`); a
        // document past the store's bound up to the bound, the conflict's block always kept
        // (`DocumentOverflow`): the blocks left out are in the document or its overflow branches.
        let blocks = DocumentOverflow.parted(Self.inReadingOrder(proposedBlocks(for: conflict)).map(\.block), keeping: conflict.block).shown
        return DocumentContent(blocks: BlockOverflow.split(blocks, besides: holdsBlock))
    }

    /// The proposal's blocks with their order keys, not yet in reading order.
    private mutating func proposedBlocks(for conflict: SyncConflict) -> [(orderKey: String, block: Block)] {
        let shown = orderedBlocks(of: conflict.document)
        var blocks = shown.filter { $0.block.id != conflict.block }
        if case .present(let key, let block) = conflict.losing { return blocks + [(key, block)] }
        guard blocks.isEmpty else { return blocks }
        if isRemovalConflict(conflict) { return shown.filter { $0.block.id == conflict.block } }
        if let viewer = viewer(of: conflict), case .present(let key, let block)? = blockValue(conflict.block, seenBy: viewer, before: true) {
            blocks.append((key, block))
        }
        return blocks
    }

    /// Whether the conflict is a removal conflict the records make (named by a removal of its document).
    private func isRemovalConflict(_ conflict: SyncConflict) -> Bool {
        (nodes[conflict.document]?.removals ?? []).contains { removal in
            SyncConflict.branchID("SealedVault removal conflict v1", conflict.block.bytes + history.entries[removal].record.hash) == conflict.branch
        }
    }

    /// The proposal of `conflict` as the record at history entry `viewer` saw the document: what a
    /// removal conflict's branch proposes when the removal's record saw no block (`removalConflicts`).
    mutating func proposal(for conflict: SyncConflict, seenBy viewer: Int) -> DocumentContent {
        var blocks: [(orderKey: String, block: Block)] = []
        for id in blocksOfDocument[conflict.document] ?? [] where id != conflict.block {
            if case .present(let key, let block)? = blockValue(id, seenBy: viewer) { blocks.append((key, block)) }
        }
        if case .present(let key, let block) = conflict.losing {
            blocks.append((key, block))
        } else if blocks.isEmpty, case .present(let key, let block)? = blockValue(conflict.block, seenBy: viewer, before: true) {
            blocks.append((key, block))
        }
        return DocumentContent(blocks: Self.inReadingOrder(blocks).map(\.block))
    }

    /// The record whose view a conflict's branch proposes: the losing side's record as the
    /// conflict's name gives it (the one the replica's own conflicts carry), when the records make
    /// that conflict or a founded 0x03 records it (`ConflictClaims`), whether or not the replica
    /// still makes it; else (a 0x03 whose name no record in its past gives, or a fold's name of
    /// the earlier rule) the lowest-ranked record carrying it.
    mutating func viewer(of conflict: SyncConflict) -> Int? {
        if let held = liveConflicts().first(where: { $0.conflict.branch == conflict.branch }) { return held.viewer }
        return foundedLosers[conflict.branch] ?? durableCarriers[conflict.branch]
    }
}
