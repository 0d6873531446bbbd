import Writing

/// What a sync conflict's branch proposes (SECURITY.md §15.3, §19.3; merge-design §2): the
/// document as this device shows it (the branch's base, one snapshot shared by every branch one
/// receive makes in the document) with the conflict's block alone replaced by the losing side.
/// Adopting it writes that block alone, so the losing side's view of the other blocks, which the
/// document may have moved past, is never brought back.
enum ConflictBranchProposal {
    /// `shown` with the conflict's block as the losing side has it: its value in the place its
    /// order key gives among the shown blocks (`orderKeys`, from the records), or taken out when
    /// the losing side deleted it. The only block of the document stays as it is, so a branch is
    /// never empty. Nil when the losing block is past the store's bound (only a device beside the
    /// store's rules writes one): it is then proposed in pieces, a whole document (`inPieces`).
    static func proposal(for conflict: SyncConflict, shown: DocumentContent, orderKeys: [BlockID: String]) -> DocumentContent? {
        if let block = conflict.losing.block, BlockOverflow.bytes(of: block) > WritingLimits.maximumBlockBytes { return nil }
        return DocumentContent(blocks: placing(conflict, in: shown, orderKeys: orderKeys))
    }

    /// The proposal when the losing block is past the store's bound: `shown` with it in pieces
    /// (`BlockOverflow`), and the document up to its bound (`DocumentOverflow`), kept whole as a
    /// version-1 branch.
    static func inPieces(_ conflict: SyncConflict, shown: DocumentContent, orderKeys: [BlockID: String],
                         besides taken: (BlockID) -> Bool) -> DocumentContent {
        let parted = DocumentOverflow.parted(placing(conflict, in: shown, orderKeys: orderKeys), keeping: conflict.block).shown
        return DocumentContent(blocks: BlockOverflow.split(parted, besides: taken))
    }

    /// The shown blocks with the losing value in place of the conflict's block.
    private static func placing(_ conflict: SyncConflict, in shown: DocumentContent, orderKeys: [BlockID: String]) -> [Block] {
        var blocks = shown.blocks.filter { $0.id != conflict.block }
        guard case .present(let key, let block) = conflict.losing else { return blocks.isEmpty ? shown.blocks : blocks }
        let index = blocks.firstIndex { other in
            orderKeys[other.id].map { Self.precedes((key, block.id), ($0, other.id)) } ?? false
        } ?? blocks.count
        blocks.insert(block, at: index)
        return blocks
    }

    /// Reading order (`SyncReplica.inReadingOrder`): by order key's bytes, then id.
    private static func precedes(_ a: (key: String, id: BlockID), _ b: (key: String, id: BlockID)) -> Bool {
        a.key == b.key ? a.id.bytes.lexicographicallyPrecedes(b.id.bytes) : Array(a.key.utf8).lexicographicallyPrecedes(Array(b.key.utf8))
    }
}
