import AuditChain
import CryptoVault

/// The checks a witness runs on a request before cosigning, in the order SECURITY.md §9.11 lists
/// them. It reads nothing but the request and what the witness pinned for the peer, and either
/// returns the verified checkpoint or says why not: a conflict (answered with the known size) or a
/// refusal (thrown).
struct WitnessCheck {
    let request: WitnessRequest
    /// What this witness holds for the peer's log; nil before the first cosignature.
    let pinned: WitnessedLog?

    enum Outcome {
        case verified(VerifiedCheckpoint)
        case conflict(WitnessAnswer.ConflictReason)
    }

    struct VerifiedCheckpoint {
        let note: SignedNote
        let checkpoint: Checkpoint
        let epoch: Int
        let epochPublicKey: [UInt8]
    }

    var knownSize: UInt64 { pinned?.treeSize ?? 0 }

    func run() throws(PeerChannelError) -> Outcome {
        let (note, claimed) = try parseCheckpoint()
        try checkIdentity(origin: claimed.origin)
        guard request.oldSize == knownSize else { return .conflict(.oldSizeMismatch) }
        let chain = try followKeyChain(origin: claimed.origin)
        try checkSignature(note, origin: claimed.origin, key: chain.key)
        guard claimed.treeSize >= knownSize else { return .conflict(.rollback) }
        guard chain.latestAfter <= claimed.treeSize else {
            throw PeerChannelError(.keyChainBroken, "a key transition follows a checkpoint of \(chain.latestAfter) entries, more than the \(claimed.treeSize) presented")
        }
        try checkConsistency(claimed)
        return .verified(VerifiedCheckpoint(note: note, checkpoint: claimed, epoch: chain.epoch, epochPublicKey: chain.key))
    }

    /// 1. The note and its text parse; the text is read only for its origin until step 5 verifies it.
    private func parseCheckpoint() throws(PeerChannelError) -> (SignedNote, Checkpoint) {
        do throws(AuditChainError) {
            let note = try SignedNote(parsing: request.checkpointNote)
            let checkpoint = try Checkpoint(parsing: note.body)
            guard checkpoint.treeSize <= UInt64(Int64.max) else { throw AuditChainError(.malformedTreeSize, "a size above 2^63 - 1") }
            return (note, checkpoint)
        } catch {
            throw WitnessWireReader.malformed("the checkpoint: \(error.message)")
        }
    }

    /// 2. A vaultctl log, and the one pinned for this peer (origin and genesis key) if there is one.
    private func checkIdentity(origin: String) throws(PeerChannelError) {
        guard Self.isVaultOrigin(origin) else { throw PeerChannelError(.unknownLog, "the checkpoint is not of a vaultctl audit log") }
        guard let pinned else { return }
        guard pinned.origin.utf8.elementsEqual(origin.utf8), pinned.genesisPublicKey == request.genesisPublicKey else {
            throw PeerChannelError(.unknownLog, "the checkpoint is of another log than the one this witness follows for the peer")
        }
    }

    /// 4. Each transition verifies with the key before it and introduces the next epoch of this log;
    /// the first after a cosigned checkpoint must follow exactly that checkpoint (its key signs once).
    private func followKeyChain(origin: String) throws(PeerChannelError) -> (epoch: Int, key: [UInt8], latestAfter: UInt64) {
        var epoch = pinned?.epoch ?? 0
        var key = pinned?.epochPublicKey ?? request.genesisPublicKey
        var latestAfter = knownSize
        for (index, text) in request.keyTransitions.enumerated() {
            guard epoch >= 0, epoch < Int.max else { throw PeerChannelError(.keyChainBroken, "the pinned key epoch \(epoch) has no successor") }
            let transition = try verifiedTransition(text, origin: origin, key: key, epoch: epoch + 1)
            if index == 0, let pinned, transition.after.treeSize != pinned.treeSize || transition.after.rootHash != pinned.rootHash {
                throw PeerChannelError(.checkpointFork, "the key that signed the cosigned checkpoint of \(pinned.treeSize) entries also signed another")
            }
            guard transition.after.treeSize >= latestAfter else {
                throw PeerChannelError(.keyChainBroken, "key transition to epoch \(epoch + 1) follows an earlier state than the one before it")
            }
            (epoch, key, latestAfter) = (epoch + 1, transition.publicKey, transition.after.treeSize)
        }
        return (epoch, key, latestAfter)
    }

    private func verifiedTransition(_ text: [UInt8], origin: String, key: [UInt8], epoch: Int) throws(PeerChannelError) -> KeyTransition {
        let transition: KeyTransition
        do {
            let note = try SignedNote(parsing: text)
            _ = try note.verify(using: [try NoteVerifierKey(name: origin, publicKey: key)])
            transition = try KeyTransition(parsing: note.body)
        } catch {
            throw PeerChannelError(.keyChainBroken, "the key transition to epoch \(epoch) is malformed or not signed by epoch \(epoch - 1)'s key")
        }
        guard transition.origin.utf8.elementsEqual(origin.utf8), transition.epoch == epoch else {
            throw PeerChannelError(.keyChainBroken, "the key transition to epoch \(epoch) names another log or epoch (\(transition.epoch))")
        }
        return transition
    }

    /// 5. The checkpoint is signed by the key the transitions led to.
    private func checkSignature(_ note: SignedNote, origin: String, key: [UInt8]) throws(PeerChannelError) {
        do {
            _ = try note.verify(using: [try NoteVerifierKey(name: origin, publicKey: key)])
        } catch {
            throw PeerChannelError(.checkpointSignatureInvalid, "the checkpoint is not signed by the log's current key: \(error.message)")
        }
    }

    /// 8-9. The same tree head at the same size, or a valid proof that the old tree is a prefix.
    private func checkConsistency(_ checkpoint: Checkpoint) throws(PeerChannelError) {
        let oldRoot = pinned?.rootHash ?? MerkleHash.emptyRoot
        if checkpoint.treeSize == knownSize, checkpoint.rootHash != oldRoot {
            throw PeerChannelError(.checkpointFork, "a second tree head for \(knownSize) entries, which this witness cosigned with another root")
        }
        do {
            try MerkleVerification.verifyConsistency(size1: Int(knownSize), size2: Int(checkpoint.treeSize), root1: oldRoot,
                                                     root2: checkpoint.rootHash, proof: request.consistencyProof)
        } catch {
            throw PeerChannelError(.inconsistentCheckpoint,
                "the checkpoint of \(checkpoint.treeSize) entries is not proven to extend the one of \(knownSize) cosigned: \(error.message)")
        }
    }

    /// "vaultctl/" and 32 lowercase hex digits (SECURITY.md §8.5).
    static func isVaultOrigin(_ origin: String) -> Bool {
        let bytes = Array(origin.utf8), prefix = Array("vaultctl/".utf8)
        let hexDigits = Set("0123456789abcdef".utf8)
        return bytes.count == prefix.count + 32 && bytes.starts(with: prefix) && bytes.dropFirst(prefix.count).allSatisfy(hexDigits.contains)
    }
}
