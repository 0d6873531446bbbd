import CryptoVault

/// What a log hands a witness so that it can cosign one of the log's checkpoints (SECURITY.md §9.11):
/// the checkpoint as signed by its epoch's key, the key transitions that lead to that key from the
/// epoch the witness has pinned, and a consistency proof from the size the witness last cosigned.
public struct WitnessMaterial: Sendable {
    /// The public key of the log's epoch 0: with the origin, the log's identity.
    public let genesisPublicKey: [UInt8]
    /// The checkpoint note exactly as the log signed and stored it.
    public let checkpointNote: String
    public let checkpointEpoch: Int
    public let treeSize: Int
    /// The introductions (signed notes) of epochs `fromEpoch + 1` through `checkpointEpoch`, in order.
    public let keyTransitions: [String]
    /// PROOF(old size, tree size) of RFC 9162 §2.1.4.1: empty when the old size is 0 or the tree size.
    public let consistencyProof: [[UInt8]]
}

/// One signed checkpoint of the vault's own log, as stored.
public struct StoredCheckpoint: Sendable, Equatable {
    public let epoch: Int
    public let treeSize: Int
    public let note: String
}

extension AuditLogReader {
    /// Every checkpoint, in the order the log made them (so of growing epoch and size).
    public func checkpoints() throws -> [StoredCheckpoint] {
        try vault.read { database in
            try Checkpointer.storedCheckpoints(in: database)
        }
    }

    /// The material for asking a witness that pinned epoch `fromEpoch` and last cosigned `oldSize`
    /// entries to cosign `checkpoint`, read in one transaction.
    public func witnessMaterial(for checkpoint: StoredCheckpoint, fromEpoch: Int, oldSize: Int) throws -> WitnessMaterial {
        guard fromEpoch >= 0, fromEpoch <= checkpoint.epoch, oldSize >= 0, oldSize <= checkpoint.treeSize else {
            throw AuditChainError(.sizeOutOfRange,
                "a witness at epoch \(fromEpoch) and size \(oldSize) cannot move to epoch \(checkpoint.epoch) and size \(checkpoint.treeSize)")
        }
        return try vault.read { database in
            let keyChain = AuditKeyChainStore(database: database)
            guard let genesis = try keyChain.storedGenesisPublicKey() else { throw AuditChainError(.verificationFailed, "the vault has no genesis audit key") }
            let introductions = try keyChain.introductions(after: fromEpoch, through: checkpoint.epoch)
            guard introductions.count == checkpoint.epoch - fromEpoch else {
                throw AuditChainError(.verificationFailed, "the audit key chain lacks epochs between \(fromEpoch) and \(checkpoint.epoch)")
            }
            let proof = try AuditTreeStore(database: database).consistencyProof(from: oldSize, to: checkpoint.treeSize)
            return WitnessMaterial(genesisPublicKey: genesis, checkpointNote: checkpoint.note, checkpointEpoch: checkpoint.epoch,
                                   treeSize: checkpoint.treeSize, keyTransitions: introductions, consistencyProof: proof)
        }
    }
}
