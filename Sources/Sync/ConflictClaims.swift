import Writing

/// What a conflict recorded by a received record (0x03) may claim, and which words it proposes
/// (attack review of issue 17, finding 4; attack review s6, A10; attack review s8, N5; SECURITY.md
/// §19.2, §19.3). A 0x03 makes a sync-conflict branch on every device that takes it, proposing its
/// losing side, and the branch is made by each device for itself: it names no device (the audit
/// entry `sync.conflict-branch` has none). So a paired device that writes the project could forge
/// one to put any words in a branch that reads as the owner's own words lost in a merge,
/// unattributed.
///
/// - Founded (a version-2 record): its name is that of a conflict a replica holding exactly the
///   records in its record's past makes, or holds pending (§19.3; what an honest device records,
///   since its record's past is all it held): a block conflict made at a merge point in that past,
///   or left out by the fold of the block's maximal writes there (`BlockRegister.losingValue`), or a
///   removal conflict of a removal of the document in that past and a present write of the block
///   in it concurrent with the removal. A received 0x03 that is not founded is refused as
///   `unfoundedConflict` (`checksConflictClaims`); a replica rebuilt from the records a vault
///   stored does not refuse (those records were checked as they came).
/// - Its words: a founded 0x03's losing side is the records' (the losing write's value with its
///   view; deleted for a removal), whatever it carries. An unfounded one (only a record stored
///   before the checks holds one) keeps the words it carries. `winning` is kept as carried.
/// - A version-1 record (made under the earlier rule, whose names a reader cannot tell from
///   forged ones): its 0x03s are read and ignored: not refused, no branch, no words taken from
///   them. Their words are in the records, and the rule makes its own conflicts of them.
extension SyncReplica {
    /// `record`'s operations as they are applied: each founded 0x03 with the losing side its name
    /// gives (an unfounded one refused as `unfoundedConflict` when `checked`), and for each founded
    /// one the record whose side it loses, which its branch is seen from; a version-1 record's
    /// 0x03s left out. Worked out before the record's own edited texts are taken out of their
    /// blocks, so that a losing write's text reads whole.
    mutating func recordedOperations(of record: ChangeRecord, prepared: CausalHistory.Entry,
                                     checked: Bool) throws(SyncError) -> (operations: [ChangeOperation], losers: [BranchID: Int]) {
        var operations: [ChangeOperation] = [], losers: [BranchID: Int] = [:]
        operations.reserveCapacity(record.operations.count)
        for operation in record.operations {
            guard case .conflict(let conflict) = operation else {
                operations.append(operation)
                continue
            }
            guard record.version >= 2 else { continue }
            let (taken, loser) = try recorded(conflict, in: record, prepared: prepared, checked: checked)
            operations.append(.conflict(taken))
            if let loser { losers[conflict.branch] = loser }
        }
        return (operations, losers)
    }

    private mutating func recorded(_ conflict: SyncConflict, in record: ChangeRecord, prepared: CausalHistory.Entry,
                                   checked: Bool) throws(SyncError) -> (conflict: SyncConflict, loser: Int?) {
        let name = "record \(CausalHistory.short(record.hash)) of device \(record.device)"
        let history = self.history
        let written = document(ofBlock: conflict.block) == conflict.document
        if checked, !written {
            throw SyncError(.unfoundedConflict, "\(name) records a conflict over block \(conflict.block) of document \(conflict.document), which no record it follows writes")
        }
        // The register is worked on in place, so the names it works out are kept for the next 0x03.
        var named: (entry: Int, value: BlockValue)?
        if written { named = withBlockRegister(conflict.block) { $0.losingValue(named: conflict.branch, madeBefore: prepared, history: history) } ?? nil }
        if named == nil, written, let removal = foundedRemoval(conflict, madeBefore: prepared) { named = (removal, .deleted) }
        guard let named else {
            if checked {
                throw SyncError(.unfoundedConflict, "\(name) records conflict \(conflict.branch) over block \(conflict.block), which the records it follows do not make")
            }
            return (conflict, nil)
        }
        guard named.value != conflict.losing else { return (conflict, named.entry) }
        return (SyncConflict(branch: conflict.branch, document: conflict.document, block: conflict.block, losing: named.value, winning: conflict.winning), named.entry)
    }

    /// The removal of the conflict's document, in the past of record `carrier`, whose removal
    /// conflict over the conflict's block has the conflict's name, when the records in that past
    /// make that conflict (`removalConflicts`): a present write of the block in that past is
    /// concurrent with the removal, and the removal's record saw a block of the document present.
    private mutating func foundedRemoval(_ conflict: SyncConflict, madeBefore carrier: CausalHistory.Entry) -> Int? {
        let history = self.history
        guard let removal = (nodes[conflict.document]?.removals ?? []).first(where: { removal in
            SyncConflict.branchID("SealedVault removal conflict v1", conflict.block.bytes + history.entries[removal].record.hash) == conflict.branch
        }), history.precedes(removal, prepared: carrier) else { return nil }
        let concurrent = blockRegister(conflict.block)?.writes.contains { write in
            write.value != .deleted && history.precedes(write.entry, prepared: carrier)
                && !history.precedes(write.entry, removal) && !history.precedes(removal, write.entry)
        } ?? false
        guard concurrent else { return nil }
        let side = SyncConflict(branch: conflict.branch, document: conflict.document, block: conflict.block, losing: .deleted, winning: .deleted)
        return proposal(for: side, seenBy: removal).blocks.isEmpty ? nil : removal
    }
}
