/// What a conflict recorded by a received record (0x03) may claim (attack review of issue 17,
/// finding 4; SECURITY.md §19.4). A 0x03 makes a sync-conflict branch on every device that takes
/// it, proposing its losing side, and the branch is made by each device for itself: it names no
/// device (the audit entry `sync.conflict-branch` has none). So a paired device that writes the
/// project could forge one to put any words in a branch that reads as the owner's own words lost
/// in a merge, over any block, unattributed. A received 0x03 must therefore name a conflict the
/// records in its record's past make: the block is one of that document's, and the branch is the
/// name (§19.3) of a register or text conflict of one of the block's writes in that past, or of a
/// removal conflict of a removal of the document in that past. Else `unfoundedConflict`.
///
/// Checked only as records are received (`checksConflictClaims`), never when a replica is rebuilt
/// from the records a vault stored: those were taken before, some of them (a fold's name, made
/// before conflicts were facts of two writes) under the earlier rule.
extension SyncReplica {
    func checkConflictClaims(of record: ChangeRecord, prepared: CausalHistory.Entry) throws(SyncError) {
        for case .conflict(let conflict) in record.operations {
            let name = "record \(CausalHistory.short(record.hash)) of device \(record.device)"
            guard let register = blockRegister(conflict.block), register.document == conflict.document else {
                throw SyncError(.unfoundedConflict, "\(name) records a conflict over block \(conflict.block) of document \(conflict.document), which no record it follows writes")
            }
            if let losing = register.losingRecord(named: conflict.branch, history: history), history.precedes(losing, prepared: prepared) { continue }
            let removals = nodes[conflict.document]?.removals ?? []
            if removals.contains(where: { removal in
                history.precedes(removal, prepared: prepared)
                    && SyncConflict.branchID("SealedVault removal conflict v1", conflict.block.bytes + history.entries[removal].record.hash) == conflict.branch
            }) { continue }
            throw SyncError(.unfoundedConflict, "\(name) records conflict \(conflict.branch) over block \(conflict.block), which the records it follows do not make")
        }
    }
}
