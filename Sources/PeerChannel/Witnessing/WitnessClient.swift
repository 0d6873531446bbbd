import AuditChain
import CryptoVault

/// The log's side of witnessing (SECURITY.md §9.11): asks a paired device to cosign this vault's
/// latest checkpoint, walking there from the last checkpoint it cosigned at most
/// `WitnessRequest.maximumTransitions` epochs per request, checks each cosignature against the
/// witness's pinned key, and stores it with an `audit.cosigned` entry. A failure is recorded as
/// `audit.witness-failed` with its reason.
public struct WitnessClient {
    public let vault: UnlockedVault

    public init(vault: UnlockedVault) { self.vault = vault }

    /// The cosignature of the latest checkpoint by the device on the other end of `channel`.
    public func requestCosignature(over channel: ChannelRequesting) throws -> ReceivedCosignature {
        let witness = channel.peer
        do {
            return try walk(to: witness, over: channel)
        } catch let error as PeerChannelError {
            try vault.record(VaultEvent(.auditWitnessFailed, subject: witness.deviceID,
                                        details: [.init("name", witness.name), .init("reason", error.code.rawValue)]))
            throw error
        }
    }

    private func walk(to witness: DeviceProfile, over channel: ChannelRequesting) throws -> ReceivedCosignature {
        try vault.vault.read { database in try WitnessService.requirePaired(witness, in: database) }
        // Every entry so far is checkpointed first, so the witness sees the newest state.
        try vault.vault.finishCommand()
        let reader = AuditLogReader(vault: vault.vault)
        let checkpoints = try reader.checkpoints()
        guard let latest = checkpoints.last else { throw AuditChainError(.verificationFailed, "the audit log has no checkpoint yet") }
        var start = try vault.vault.read { try ReceivedCosignatureStore(database: $0).latest(from: witness.deviceID) }
            .map { (epoch: $0.epoch, size: $0.treeSize) } ?? (epoch: 0, size: 0)
        var retried = false
        // Each round either advances at least one epoch or is the one retry after a conflict.
        for _ in 0...(2 * checkpoints.count + 1) {
            // Epochs are non-negative (read checked), so the difference cannot overflow where a sum could.
            let target = checkpoints.last { $0.epoch - start.epoch <= WitnessRequest.maximumTransitions } ?? latest
            let material = try reader.witnessMaterial(for: target, fromEpoch: start.epoch, oldSize: start.size)
            let body = try WitnessRequest(material, oldSize: start.size).serialized()
            switch try WitnessAnswer(parsing: try channel.request(WitnessRequest.kind, body: body)) {
            case .cosigned(let line):
                let received = try accept(line, on: target, from: witness)
                if target == latest { return received }
                (start, retried) = ((target.epoch, target.treeSize), false)
            case .conflict(let knownSize, let reason):
                start = try restart(at: knownSize, reason: reason, checkpoints: checkpoints, retried: retried)
                retried = true
            }
        }
        throw PeerChannelError(.oldSizeMismatch, "the witness did not settle on a state this log can continue from")
    }

    /// Checks the witness's line on the checkpoint with its pinned key, then stores it and records it.
    private func accept(_ line: NoteSignature, on checkpoint: StoredCheckpoint, from witness: DeviceProfile) throws -> ReceivedCosignature {
        let note = try SignedNote(parsing: checkpoint.note)
        let cosigned: SignedNote
        let timestamp: UInt64
        do throws(AuditChainError) {
            cosigned = try SignedNote(body: note.body, signatures: note.signatures + [line])
            timestamp = try WitnessIdentity.verifierKey(of: witness).verifyCosignature(on: cosigned)
        } catch {
            throw PeerChannelError(.cosignatureInvalid, "the cosignature from \(witness.name) does not verify with its pinned key: \(error.message)")
        }
        let received = ReceivedCosignature(witnessDeviceID: witness.deviceID, witnessPublicKey: witness.signingPublicKey,
                                           epoch: checkpoint.epoch, treeSize: checkpoint.treeSize,
                                           cosignedNote: cosigned.serialized(), cosignedAt: timestamp)
        try vault.transaction { tx in
            try ReceivedCosignatureStore(database: tx.database).add(received)
            try tx.record(.auditCosigned, subject: witness.deviceID, details: [.init("name", witness.name), .init("size", String(checkpoint.treeSize))])
        }
        return received
    }

    /// Where to start again after a conflict: from the size the witness holds, if this log has a
    /// checkpoint of that size and is not smaller. A witness that holds more is evidence of a rollback.
    private func restart(at knownSize: UInt64, reason: WitnessAnswer.ConflictReason, checkpoints: [StoredCheckpoint],
                         retried: Bool) throws(PeerChannelError) -> (epoch: Int, size: Int) {
        let ours = checkpoints.last?.treeSize ?? 0
        guard reason == .oldSizeMismatch, knownSize <= UInt64(ours) else {
            throw PeerChannelError(.checkpointRollback,
                "the witness has cosigned this log at \(knownSize) entries, and this vault's log has \(ours): it was cut back or restored from an older copy")
        }
        guard !retried else { throw PeerChannelError(.oldSizeMismatch, "the witness changed its state while this log was asking it") }
        if knownSize == 0 { return (0, 0) }
        guard let held = checkpoints.last(where: { $0.treeSize == Int(knownSize) }) else {
            throw PeerChannelError(.checkpointFork, "the witness holds a checkpoint of \(knownSize) entries that this log never made")
        }
        return (held.epoch, held.treeSize)
    }
}
