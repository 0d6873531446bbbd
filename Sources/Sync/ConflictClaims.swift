import Writing

/// What a conflict recorded by a received record (0x03) may claim, and which words it proposes
/// (attack review of issue 17, finding 4; attack review s6, A10; attack review s8, N5; SECURITY.md
/// §19.3, §19.4). A 0x03 makes a sync-conflict branch on every device that takes it, proposing its
/// losing side, and the branch is made by each device for itself: it names no device (the audit
/// entry `sync.conflict-branch` has none). So a paired device that writes the project could forge
/// one to put any words in a branch that reads as the owner's own words lost in a merge,
/// unattributed.
///
/// - Founded: its name is that of a conflict a replica holding exactly the records in its record's
///   past makes (§19.3; what an honest device records, since its record's past is all it held): a
///   register conflict of two writes of the block in that past, a text conflict of two records in
///   that past whose edits of the block overlap or whose letters touch, or a removal conflict of a
///   removal of the document in that past and a present write of the block in it concurrent with
///   the removal. A name that merely hashes a write, or two concurrent writes, whose records make
///   no such conflict is not founded. A received 0x03 that is not is refused as
///   `unfoundedConflict` (`checksConflictClaims`); a replica rebuilt from the records a vault
///   stored does not refuse (those records were checked as they came).
/// - Its words: a founded 0x03's losing side is the records' (the losing write's value with the
///   text its record saw; deleted for a removal), whatever it carries: a writer naming a genuine
///   conflict with other words (deleted, whose encoding is the least and so would be kept, or its
///   own) changes no branch. An unfounded one (only a record stored before the checks holds one)
///   keeps the words it carries. `winning` is kept as carried: no branch proposes it.
/// - The earlier rule (§19.2; attack review s6, A11): records made before conflicts were facts of
///   two writes named a fold's several losing writes at once. Such a name is founded when two or
///   more pairwise concurrent writes of the block in its record's past give it
///   (`BlockRegister.foldValue`, within `foldNamesPerRecord` per record), its losing side their
///   fold with the text they saw together: a vault that stored one passes it on (`repair --from`,
///   a new device's first sync), and its words are the records' too.
extension SyncReplica {
    /// `record`'s operations as they are applied: each founded 0x03 with the losing side its name
    /// gives (an unfounded one refused as `unfoundedConflict` when `checked`), and for each founded
    /// one the record whose side it loses (a fold's name of the earlier rule has none), which its
    /// branch is seen from. Worked out before the record's own edited texts are taken out of their
    /// blocks, so that a losing write's text reads whole.
    mutating func recordedOperations(of record: ChangeRecord, prepared: CausalHistory.Entry,
                                     checked: Bool) throws(SyncError) -> (operations: [ChangeOperation], losers: [BranchID: Int]) {
        var operations: [ChangeOperation] = [], losers: [BranchID: Int] = [:]
        var budget = Self.foldNamesPerRecord
        operations.reserveCapacity(record.operations.count)
        for operation in record.operations {
            guard case .conflict(let conflict) = operation else {
                operations.append(operation)
                continue
            }
            let (taken, loser) = try recorded(conflict, in: record, prepared: prepared, checked: checked, budget: &budget)
            operations.append(.conflict(taken))
            if let loser { losers[conflict.branch] = loser }
        }
        return (operations, losers)
    }

    /// The work one record's 0x03s may cost in all while names of the earlier rule are looked for:
    /// each search pays the writes of its block it considers, then one per set of writes it names.
    /// Honest old folds name sets of two or three writes of a block with few writes; a record of
    /// thousands of 0x03s naming conflicts no record makes costs this much, not more (attack
    /// review s8, N6). Other names are looked up in each register's names, worked out once.
    static let foldNamesPerRecord = 4096

    private mutating func recorded(_ conflict: SyncConflict, in record: ChangeRecord, prepared: CausalHistory.Entry, checked: Bool,
                                   budget: inout Int) throws(SyncError) -> (conflict: SyncConflict, loser: Int?) {
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
        if named == nil, written,
           let fold = withBlockRegister(conflict.block, { $0.foldValue(named: conflict.branch, seenBy: prepared, history: history, budget: &budget) }) ?? nil {
            // Every write of the fold is in the record's past: the name is founded.
            return (fold == conflict.losing ? conflict
                : SyncConflict(branch: conflict.branch, document: conflict.document, block: conflict.block, losing: fold, winning: conflict.winning), nil)
        }
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
