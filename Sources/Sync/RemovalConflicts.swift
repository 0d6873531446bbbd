import CryptoVault
import Writing

/// A document removed on one device while another, not having seen the removal, edited its blocks
/// (SECURITY.md §19.3). Last-writer-wins would take those edits out of every vault with the
/// document, and a branch cannot outlive its document, so the document **stays**: it shows its
/// highest-ranked present value (and so does each removed folder above it), and each block edited
/// unseen is a removal conflict, kept as a syncConflict branch whose proposal is the document as
/// the removal saw it without that block (the removal's side), so the owner decides. A removal made knowing the edits
/// (they are in its record's past) removes the document as ever.
///
/// So too a document removed while another device, not having seen the removal, made a branch of
/// it (review 20, F20-4): a suggestion's proposal holds words no block write does, and a removed
/// document takes its branches with it, so the document stays with the branch, open for the owner
/// to adopt or discard. No block changed, so there is no removal conflict.
///
/// Likewise a folder removed on one device while another made or moved a document (or folder) into
/// it, not having seen the removal (review 17, F5): what is present is never hidden under a removed
/// folder, so the folder stays, showing its last present value, and so does each removed folder
/// above it. A folder removed knowing its contents removed them too, so nothing present is under it.
extension SyncReplica {
    /// Every node's value as shown: the register's, except for documents kept despite their
    /// removal and the removed folders above them, which show their last present value.
    func nodeValues() -> [NodeID: NodeValue] {
        var values = nodes.mapValues { $0.value(history: history) }
        for document in keptDespiteRemoval().keys { showPresent(document, andAbove: &values) }
        // Whatever is present keeps the removed folders above it (what it shows, not the order of
        // the nodes, decides: the same on every device).
        for (id, value) in values where value != .removed { showPresent(id, andAbove: &values) }
        return values
    }

    /// Shows `id` (when removed) and each removed folder above it with its last present value.
    private func showPresent(_ id: NodeID, andAbove values: inout [NodeID: NodeValue]) {
        var cursor: NodeID? = id, depth = 0
        while let node = cursor, depth <= WritingLimits.maximumNesting, let register = nodes[node] {
            if values[node] == .removed, let present = register.lastPresent(history: history) { values[node] = present }
            guard case .present(_, let parent, _, _)? = values[node] else { break }
            cursor = parent
            depth += 1
        }
    }

    /// The documents whose winning value is a removal while a present write of one of their blocks,
    /// or a branch made of them, is not in that removal's past, by id: the removal's history entry.
    func keptDespiteRemoval() -> [NodeID: Int] {
        var kept: [NodeID: Int] = [:], branchesMade: [NodeID: [Int]]?
        for (id, register) in nodes {
            let winner = register.winner(history: history)
            guard winner.value == .removed, register.lastPresent(history: history).map(Self.isDocument) == true else { continue }
            if blocksOfDocument[id, default: []].contains(where: { hasPresentWrite(of: $0, unseenBy: winner.entry) }) { kept[id] = winner.entry; continue }
            // Worked out once, and only when a document is removed: most binders have none.
            if branchesMade == nil { branchesMade = versions.branchesMadeByDocument }
            if branchesMade?[id]?.contains(where: { !history.precedes($0, winner.entry) }) == true { kept[id] = winner.entry }
        }
        return kept
    }

    /// One conflict per removal of a document and block of it with a present write concurrent
    /// with that removal (SECURITY.md §19.3): the losing side is the block deleted (what the removal
    /// would leave), the winning side the highest-ranked such write's value with the text its
    /// record saw; its branch proposes the document as the removal's record saw it. Named by the
    /// block and the removal's record. A fact of those records, it stays whatever arrives later.
    /// A removal whose record saw no block of the document present (an emptied document removed
    /// while another device typed in it) makes none: its side holds no words to keep, its branch
    /// would propose an empty document, and the document stays with the other side's words.
    mutating func removalConflicts() -> [HeldConflict] {
        var conflicts: [HeldConflict] = []
        for (document, blocks) in blocksOfDocument.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
            guard let register = nodes[document] else { continue }
            for removal in register.removals {
                for block in blocks.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
                    guard let winning = valueConcurrent(with: removal, in: block) else { continue }
                    let branch = SyncConflict.branchID(Self.removalLabel, block.bytes + history.entries[removal].record.hash)
                    let conflict = SyncConflict(branch: branch, document: document, block: block, losing: .deleted, winning: winning)
                    guard !proposal(for: conflict, seenBy: removal).blocks.isEmpty else { continue }
                    conflicts.append(HeldConflict(conflict: conflict, viewer: removal))
                }
            }
        }
        return conflicts
    }

    private static func isDocument(_ value: NodeValue) -> Bool {
        if case .present(.scene, _, _, _) = value { return true }
        return false
    }
}
