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
    /// What a conflict's syncConflict branch proposes (SECURITY.md §19.3): the document as the
    /// losing side's record saw it (each of its blocks the value of its writes in that record's
    /// past, with the text the record saw) with the losing value in place of the block. A losing
    /// side that deleted the block leaves it out, unless no other block is left: then the block
    /// stays as the record saw it before deleting it, so a branch is never empty (a removal whose
    /// record saw no block present makes no conflict, `removalConflicts`). A function of the
    /// records held, so every device holding them proposes the same, whenever it met the conflict.
    public mutating func proposal(for conflict: SyncConflict) -> DocumentContent {
        guard let viewer = viewer(of: conflict) else { return DocumentContent() }
        // A block over the store's bound (only a device beside the store's rules writes one) in
        // pieces, as a document shows it (`BlockOverflow`); a document past the store's bound (a
        // record made after two devices' additions merged saw it all) up to the bound, the
        // conflict's block always kept (`DocumentOverflow`): the blocks left out are in the
        // document or its overflow branches.
        let blocks = DocumentOverflow.parted(proposal(for: conflict, seenBy: viewer).blocks, keeping: conflict.block).shown
        return DocumentContent(blocks: BlockOverflow.split(blocks, besides: holdsBlock))
    }

    /// The proposal of `conflict` as the record at history entry `viewer` saw the document.
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
