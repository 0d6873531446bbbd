/// What a conflict recorded by a received record (0x03) may claim, and which words it proposes
/// (attack review of issue 17, finding 4; attack review s6, A10; SECURITY.md §19.3, §19.4). A 0x03
/// makes a sync-conflict branch on every device that takes it, proposing its losing side, and the
/// branch is made by each device for itself: it names no device (the audit entry
/// `sync.conflict-branch` has none). So a paired device that writes the project could forge one to
/// put any words in a branch that reads as the owner's own words lost in a merge, unattributed.
///
/// - Its name: a received 0x03 must name a conflict the records in its record's past make: the
///   block is one of that document's, and the branch is the name (§19.3) of a register or text
///   conflict of one of the block's writes in that past, or of a removal conflict of a removal of
///   the document in that past. Else `unfoundedConflict`. Checked only as records are received
///   (`checksConflictClaims`), never when a replica is rebuilt from the records a vault stored.
/// - Its words: whenever its name is one the records in its past give, its losing side is the
///   records' (the losing write's value with the text its record saw; deleted for a removal),
///   whatever the 0x03 carries: a writer naming a genuine conflict with other words (deleted, whose
///   encoding is the least and so would be kept, or its own) changes no branch. A name no record in
///   its past gives keeps the words it carries (only a record stored before the checks holds one).
///   `winning` is kept as carried: no branch proposes it.
/// - The earlier rule (§19.2; attack review s6, A11): records made before conflicts were facts of
///   two writes named a fold's several losing writes at once. Such a name is taken when two or
///   more pairwise concurrent writes of the block in its record's past give it
///   (`BlockRegister.foldValue`, within `foldNamesPerRecord` per record), its losing
///   side their fold with the text they saw together: a vault that stored one passes it on
///   (`repair --from`, a new device's first sync), and its words are the records' too.
extension SyncReplica {
    /// `record`'s operations as they are applied: each 0x03 with the losing side its name gives
    /// (refused as `unfoundedConflict` when `checked` and the name is not one its past gives).
    /// Worked out before the record's own edited texts are taken out of their blocks, so that a
    /// losing write's text reads whole.
    mutating func recordedOperations(of record: ChangeRecord, prepared: CausalHistory.Entry, checked: Bool) throws(SyncError) -> [ChangeOperation] {
        var operations: [ChangeOperation] = []
        var budget = Self.foldNamesPerRecord
        operations.reserveCapacity(record.operations.count)
        for operation in record.operations {
            guard case .conflict(let conflict) = operation else {
                operations.append(operation)
                continue
            }
            operations.append(.conflict(try recorded(conflict, in: record, prepared: prepared, checked: checked, budget: &budget)))
        }
        return operations
    }

    /// The work one record's 0x03s may cost in all while names of the earlier rule are looked for:
    /// each search pays the writes of its block it considers, then one per set of writes it names.
    /// Honest old folds name sets of two or three writes of a block with few writes; a record of
    /// thousands of 0x03s naming conflicts no record makes costs this much, not more (attack
    /// review s8, N6). Other names are looked up in each register's names, worked out once.
    static let foldNamesPerRecord = 4096

    private mutating func recorded(_ conflict: SyncConflict, in record: ChangeRecord, prepared: CausalHistory.Entry, checked: Bool,
                                   budget: inout Int) throws(SyncError) -> SyncConflict {
        let name = "record \(CausalHistory.short(record.hash)) of device \(record.device)"
        let history = self.history
        let written = document(ofBlock: conflict.block) == conflict.document
        if checked, !written {
            throw SyncError(.unfoundedConflict, "\(name) records a conflict over block \(conflict.block) of document \(conflict.document), which no record it follows writes")
        }
        // The register is worked on in place, so the names it works out are kept for the next 0x03.
        var named: (entry: Int, value: BlockValue)?
        if written { named = withBlockRegister(conflict.block) { $0.losingValue(named: conflict.branch, history: history) } ?? nil }
        if named == nil, let removal = namedRemoval(conflict) { named = (removal, .deleted) }
        if named == nil, written,
           let fold = withBlockRegister(conflict.block, { $0.foldValue(named: conflict.branch, seenBy: prepared, history: history, budget: &budget) }) ?? nil {
            // Every write of the fold is in the record's past: the name is founded.
            return fold == conflict.losing ? conflict
                : SyncConflict(branch: conflict.branch, document: conflict.document, block: conflict.block, losing: fold, winning: conflict.winning)
        }
        guard let named, history.precedes(named.entry, prepared: prepared) else {
            if checked {
                throw SyncError(.unfoundedConflict, "\(name) records conflict \(conflict.branch) over block \(conflict.block), which the records it follows do not make")
            }
            return conflict
        }
        guard named.value != conflict.losing else { return conflict }
        return SyncConflict(branch: conflict.branch, document: conflict.document, block: conflict.block, losing: named.value, winning: conflict.winning)
    }

    /// The removal of the conflict's document whose removal conflict over its block has the conflict's name, if held.
    private func namedRemoval(_ conflict: SyncConflict) -> Int? {
        (nodes[conflict.document]?.removals ?? []).first { removal in
            SyncConflict.branchID("SealedVault removal conflict v1", conflict.block.bytes + history.entries[removal].record.hash) == conflict.branch
        }
    }
}
