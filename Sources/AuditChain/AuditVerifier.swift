import CryptoVault
import Foundation

/// Checks an audit log from its genesis key alone: the key chain (each key introduced by the one
/// before), every checkpoint (signed by its epoch's key, in order, its root equal to the tree of the
/// entries it covers), and every entry (canonical, numbered in order, chained to the one before).
public struct AuditVerifier: Sendable {
    public struct Report: Sendable {
        public let entryCount: Int
        public let checkpointCount: Int
        public let epochCount: Int
        /// Entries recorded after the latest checkpoint (not yet signed).
        public let uncheckpointedEntries: Int
        public let latestCheckpoint: String?
        /// Each carried witness cosignature, verified (step 7), in the snapshot's order.
        public var witnesses: [ExportedCosignature.Verified] = []
    }

    let snapshot: AuditSnapshot
    let genesis: NoteVerifierKey

    /// `genesis` is the trusted key (an auditor's `--key`); for a vault's own log, its stored key 0.
    public init(snapshot: AuditSnapshot, genesis: NoteVerifierKey) {
        self.snapshot = snapshot
        self.genesis = genesis
    }

    public func verify() throws -> Report {
        // The entries need only the checkpoints' sizes and roots, so the signatures (one Ed25519
        // verification per checkpoint and per key transition) are checked on a second core meanwhile.
        // Every check still runs, and a failure among signatures and checkpoints is reported before
        // one among entries, as if they ran one after the other.
        let (signed, entries) = bothAtOnce({ try verifiedKeysAndCheckpoints() },
                                           { try verifiedEntries(against: try verifiedCheckpoints(keys: nil)) })
        let (keys, checkpoints) = try signed.get()
        let count = try entries.get()
        var report = Report(entryCount: count, checkpointCount: checkpoints.count, epochCount: keys.count,
                            uncheckpointedEntries: count - (checkpoints.last?.treeSize ?? 0), latestCheckpoint: snapshot.checkpoints.last?.note)
        report.witnesses = try verifiedCosignatures()
        return report
    }

    /// 7. **cosignature** — each carried cosignature is on the text of a checkpoint verified above
    /// and holds a valid `cosignature/v1` line by its witness key (§8.10).
    private func verifiedCosignatures() throws -> [ExportedCosignature.Verified] {
        guard !snapshot.cosignatures.isEmpty else { return [] }
        let bodies = Set(try snapshot.checkpoints.map { try parse($0.note, what: "a checkpoint").body })
        return try snapshot.cosignatures.map { try $0.verify(against: bodies) }
    }

    private func verifiedKeysAndCheckpoints() throws -> (keys: [EpochKey], checkpoints: [VerifiedCheckpoint]) {
        let keys = try verifiedKeyChain()
        let checkpoints = try verifiedCheckpoints(keys: keys)
        try checkTransitionsFollowCheckpoints(checkpoints, keys: keys)
        return (keys, checkpoints)
    }

    // MARK: Key chain

    struct EpochKey {
        let key: NoteVerifierKey
        /// The checkpoint the transition into this epoch follows (nil for genesis).
        let after: (size: Int, root: [UInt8])?
    }

    private func verifiedKeyChain() throws -> [EpochKey] {
        guard let first = snapshot.keys.first, first.epoch == 0 else { throw failure("the log has no genesis key") }
        // Origins compare byte for byte in every step (§8.7): Swift's == on strings would equate
        // canonically equivalent spellings, which an independent verifier does not.
        guard first.publicKey == genesis.publicKey, genesis.name.utf8.elementsEqual(snapshot.origin.utf8) else {
            throw failure("the log's genesis key is not the trusted key \(genesis.vkey)")
        }
        var chain = [EpochKey(key: genesis, after: nil)]
        for key in snapshot.keys.dropFirst() {
            guard key.epoch == chain.count, let introduction = key.introduction else {
                throw failure("audit key epoch \(key.epoch) is out of order or has no introduction")
            }
            let note = try parse(introduction, what: "the introduction of key epoch \(key.epoch)")
            try verify(note, by: chain[chain.count - 1].key, what: "the introduction of key epoch \(key.epoch)")
            let transition = try KeyTransition(parsing: note.body)
            guard transition.origin.utf8.elementsEqual(snapshot.origin.utf8), transition.epoch == key.epoch, transition.publicKey == key.publicKey else {
                throw failure("the introduction of key epoch \(key.epoch) names another log, epoch or key")
            }
            let verifierKey = try noteKey(key.publicKey)
            chain.append(EpochKey(key: verifierKey, after: (Int(transition.after.treeSize), transition.after.rootHash)))
        }
        return chain
    }

    // MARK: Checkpoints

    struct VerifiedCheckpoint {
        let epoch: Int
        let treeSize: Int
        let rootHash: [UInt8]
    }

    /// The checkpoints in order, each checked against its epoch's key; with `keys` nil, every check but
    /// the signature (for the entries, while the signatures are checked elsewhere).
    private func verifiedCheckpoints(keys: [EpochKey]?) throws -> [VerifiedCheckpoint] {
        let epochCount = keys?.count ?? snapshot.keys.count
        var verified: [VerifiedCheckpoint] = []
        for (index, signed) in snapshot.checkpoints.enumerated() {
            guard signed.epoch >= 0, signed.epoch < epochCount else { throw failure("checkpoint \(index) names an unknown key epoch \(signed.epoch)") }
            let note = try parse(signed.note, what: "checkpoint \(index)")
            if let keys { try verify(note, by: keys[signed.epoch].key, what: "checkpoint \(index)") }
            let body: Checkpoint
            do { body = try Checkpoint(parsing: note.body) } catch { throw failure("checkpoint \(index) is malformed: \(error)") }
            guard Array(body.origin.utf8) == Array(snapshot.origin.utf8) else { throw failure("checkpoint \(index) is for another log (\(body.origin))") }
            guard body.treeSize <= UInt64(Int.max) else { throw failure("checkpoint \(index) claims an impossible tree size") }
            if let stored = signed.storedTreeSize, stored != Int64(body.treeSize) {
                throw failure("checkpoint \(index)'s stored tree_size \(stored) is not the \(body.treeSize) entries its note signs")
            }
            let current = VerifiedCheckpoint(epoch: signed.epoch, treeSize: Int(body.treeSize), rootHash: body.rootHash)
            if let previous = verified.last {
                guard current.treeSize >= previous.treeSize, current.epoch >= previous.epoch else {
                    throw failure("checkpoint \(index) goes back in size or epoch (a rollback or a forged earlier checkpoint)")
                }
            }
            verified.append(current)
        }
        return verified
    }

    /// Each key transition must follow the newest checkpoint its outgoing key signed: a key cannot be
    /// retired without leaving its last checkpoint behind, and a later key cannot sign for its epoch.
    /// The checkpoints are in order of size and epoch (checked above), so one pass over them suffices.
    private func checkTransitionsFollowCheckpoints(_ checkpoints: [VerifiedCheckpoint], keys: [EpochKey]) throws {
        var lastOfEpoch: [Int: VerifiedCheckpoint] = [:]
        for checkpoint in checkpoints { lastOfEpoch[checkpoint.epoch] = checkpoint }
        var firstOfLaterEpoch = 0
        for (epoch, key) in keys.enumerated() {
            guard let after = key.after else { continue }
            guard let last = lastOfEpoch[epoch - 1], last.treeSize == after.size, last.rootHash == after.root else {
                throw failure("key epoch \(epoch) was introduced after a checkpoint that epoch \(epoch - 1) never signed")
            }
            // The first checkpoint of this epoch or later is the smallest of them: if any claims an
            // earlier state than the transition, this one does.
            while firstOfLaterEpoch < checkpoints.count, checkpoints[firstOfLaterEpoch].epoch < epoch { firstOfLaterEpoch += 1 }
            if firstOfLaterEpoch < checkpoints.count, checkpoints[firstOfLaterEpoch].treeSize < after.size {
                let stray = checkpoints[firstOfLaterEpoch]
                throw failure("a checkpoint of epoch \(stray.epoch) claims an earlier state (size \(stray.treeSize)) than epoch \(epoch) began at")
            }
        }
    }

    // MARK: Entries

    private func verifiedEntries(against checkpoints: [VerifiedCheckpoint]) throws -> Int {
        var frontier = MerkleFrontier()
        var previousHash = MerkleHash.Digest()
        var pending = checkpoints[...]
        // An entry that does not chain to the one before it, waiting for the next entry to say which
        // of the two was altered (see `brokenChain`). Whichever it was, verification fails there.
        var unchained: Int?
        try checkRoots(&pending, frontier: frontier)
        try snapshot.forEachEntry { index, encoded, storedLeafHash in
            if let unchained {
                throw brokenChain(at: unchained, nextChains: (try? EncodedEntry(parsing: encoded)).map { $0.previousHashDigest == previousHash })
            }
            let entry: EncodedEntry
            do { entry = try EncodedEntry(parsing: encoded) } catch {
                throw AuditVerificationFailure(entry: index, reason: "entry \(index) does not decode: \(error)")
            }
            guard entry.seq == UInt64(index) else {
                throw AuditVerificationFailure(entry: index, reason: "entry \(index) carries sequence number \(entry.seq) (an entry was removed or reordered)")
            }
            let leafHash = MerkleHash.leaf(encoded)
            // A recorded leaf hash that no longer matches says this entry was the one altered.
            let matchesRecord = storedLeafHash.map { $0.count == MerkleHash.size && MerkleHash.digest($0) == leafHash } ?? true
            if entry.previousHashDigest != previousHash {
                if !matchesRecord { throw altered(index) }
                guard index > 0 else { throw brokenChain(at: 0, nextChains: nil) }
                unchained = index
            } else if !matchesRecord {
                throw altered(index)
            }
            frontier.append(leafHash: leafHash)
            previousHash = leafHash
            if unchained == nil { try checkRoots(&pending, frontier: frontier) }
        }
        if let unchained { throw brokenChain(at: unchained, nextChains: nil) }
        if let missing = pending.first {
            throw AuditVerificationFailure(entry: frontier.size,
                reason: "a checkpoint covers \(missing.treeSize) entries but the log has \(frontier.size): entries \(frontier.size) onward were removed")
        }
        return frontier.size
    }

    /// Entry `index` does not chain to entry `index - 1`: either entry `index - 1` was altered (its leaf
    /// hash changed) or entry `index` was, in its previous-hash field. The next entry tells the two
    /// apart: it chains to entry `index` exactly when that entry is intact. Without a next entry
    /// (`nextChains` nil: the log ends, or the next entry does not decode) entry `index - 1` is named.
    private func brokenChain(at index: Int, nextChains: Bool?) -> AuditVerificationFailure {
        guard index > 0 else {
            return AuditVerificationFailure(entry: 0, reason: "entry 0 does not chain to the start of the log (its previous hash is not zeros)")
        }
        if nextChains == false {
            return AuditVerificationFailure(entry: index,
                reason: "entry \(index) does not chain to entry \(index - 1), nor entry \(index + 1) to it: entry \(index) was altered")
        }
        return AuditVerificationFailure(entry: index - 1,
            reason: "entry \(index) does not chain to entry \(index - 1) (entry \(index - 1) was altered, or one was removed)")
    }

    private func altered(_ index: Int) -> AuditVerificationFailure {
        AuditVerificationFailure(entry: index, reason: "entry \(index) was altered: it no longer matches its recorded hash")
    }

    private func checkRoots(_ pending: inout ArraySlice<VerifiedCheckpoint>, frontier: MerkleFrontier) throws {
        guard pending.first?.treeSize == frontier.size else { return }
        let rootHash = frontier.rootHash
        while let next = pending.first, next.treeSize == frontier.size {
            guard next.rootHash == rootHash else {
                throw AuditVerificationFailure(entry: max(0, frontier.size - 1),
                    reason: "the checkpoint of \(next.treeSize) entries does not match them (an entry up to \(frontier.size - 1) was altered)")
            }
            pending.removeFirst()
        }
    }

    // MARK: Helpers

    private func parse(_ text: String, what: String) throws -> SignedNote {
        do { return try SignedNote(parsing: text) } catch { throw failure("\(what) is not a valid signed note: \(error)") }
    }

    private func verify(_ note: SignedNote, by key: NoteVerifierKey, what: String) throws {
        do { _ = try note.verify(using: [key]) } catch { throw failure("\(what) is not signed by its key: \(error)") }
    }

    private func noteKey(_ publicKey: [UInt8]) throws -> NoteVerifierKey {
        do { return try NoteVerifierKey(name: snapshot.origin, publicKey: publicKey) } catch { throw failure("a key in the chain is malformed") }
    }

    private func failure(_ reason: String) -> AuditVerificationFailure {
        AuditVerificationFailure(entry: nil, reason: reason)
    }
}

extension KeyTransition {
    /// Strict parse of the text `text` produces.
    public init(parsing text: String) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count == 6, lines[0] == Self.firstLine, lines[5].isEmpty,
              lines[2].hasPrefix("epoch "), let epoch = Int(lines[2].dropFirst(6)), epoch >= 0, String(epoch) == lines[2].dropFirst(6),
              lines[3].hasPrefix("key "), let key = Data(base64Encoded: String(lines[3].dropFirst(4))), key.count == 32,
              lines[4].hasPrefix("after ") else {
            throw AuditVerificationFailure(entry: nil, reason: "a key transition is malformed")
        }
        let after = lines[4].dropFirst(6).split(separator: " ", omittingEmptySubsequences: false)
        guard after.count == 2, let size = Int(after[0]), size >= 0, String(size) == after[0], let root = Data(base64Encoded: String(after[1])), root.count == 32 else {
            throw AuditVerificationFailure(entry: nil, reason: "a key transition is malformed")
        }
        guard let after = try? Checkpoint(origin: lines[1], treeSize: UInt64(size), rootHash: Array(root)) else {
            throw AuditVerificationFailure(entry: nil, reason: "a key transition is malformed")
        }
        self.init(origin: lines[1], epoch: epoch, publicKey: Array(key), after: after)
        guard self.text == text else { throw AuditVerificationFailure(entry: nil, reason: "a key transition is not in canonical form") }
    }
}
