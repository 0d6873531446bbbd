/// Verification of RFC 9162 proofs by anyone holding only tree heads: each check returns normally when
/// the proof holds and otherwise throws an `AuditChainError` whose code says what failed.
///
/// The two algorithms are RFC 9162 §2.1.3.2 and §2.1.4.2 step by step (the numbered comments are the
/// RFC's steps), because a verifier that differs from the standard in any corner proves nothing to an
/// auditor who runs another implementation. Two checks are added: every hash must be 32 bytes (a
/// proof hash is checked when the loop reaches it), and sizes must be in order. A proof's length is
/// bounded by the loops themselves, which fail once `sn` reaches zero, so an attacker's long proof
/// costs at most 64 iterations and its surplus is never read.
///
/// A proof binds a leaf to a root, not to a size: the tree size is bound to its root by the signed
/// checkpoint that carries both, so verify against sizes and roots taken from one checkpoint.
public enum MerkleVerification {
    /// Checks that `leafHash` is leaf `index` of the tree of `treeSize` leaves whose head is `rootHash`.
    public static func verifyInclusion(leafHash: [UInt8], index: Int, treeSize: Int,
                                       proof: [[UInt8]], rootHash: [UInt8]) throws(AuditChainError) {
        try MerkleHash.require(leafHash, "leaf hash")
        try MerkleHash.require(rootHash, "root hash")
        // 1. If leaf_index is greater than or equal to tree_size, fail.
        guard index >= 0, index < treeSize else {
            throw AuditChainError(.indexOutOfRange, "leaf \(index) is not in a tree of \(treeSize) leaves")
        }
        // 2. Set fn to leaf_index and sn to tree_size - 1. 3. Set r to hash.
        var fn = index, sn = treeSize - 1
        var r = leafHash
        // 4. For each value p in the inclusion_path array:
        for p in proof {
            // a. If sn is 0, stop and fail: the path is longer than the tree is high.
            guard sn != 0 else { throw tooLong(proof, "inclusion", index, treeSize) }
            try MerkleHash.require(p, "proof hash")
            // b. If LSB(fn) is set, or if fn is equal to sn, p is a left sibling:
            if fn & 1 == 1 || fn == sn {
                r = MerkleHash.node(p, r)
                // ii. If LSB(fn) is not set, right-shift both until LSB(fn) is set or fn is 0: this
                // climbs past the levels where a last, unpaired subtree has no sibling.
                while fn & 1 == 0, fn != 0 { fn >>= 1; sn >>= 1 }
            } else {
                r = MerkleHash.node(r, p)
            }
            // c. Finally, right-shift both fn and sn one time.
            fn >>= 1; sn >>= 1
        }
        // 5. sn must be 0 (the whole path was given) and r must equal the root.
        guard sn == 0 else { throw tooShort(proof, "inclusion", index, treeSize) }
        guard r == rootHash else {
            throw AuditChainError(.rootMismatch, "the inclusion proof for leaf \(index) does not lead to the root of the tree of \(treeSize) leaves")
        }
    }

    /// Checks that the tree of `size1` leaves with head `root1` is a prefix of the tree of `size2`
    /// leaves with head `root2`.
    ///
    /// RFC 9162 defines the proof for 0 < size1 < size2. Equal sizes are consistent exactly when the
    /// proof is empty and the roots are equal. Size 0 is consistent with every size when the proof is
    /// empty and `root1` is the empty tree's root: the empty tree is a prefix of every tree. A first
    /// size larger than the second is refused, since a log never shrinks.
    public static func verifyConsistency(size1: Int, size2: Int, root1: [UInt8], root2: [UInt8],
                                         proof: [[UInt8]]) throws(AuditChainError) {
        try MerkleHash.require(root1, "first root hash")
        try MerkleHash.require(root2, "second root hash")
        guard size1 >= 0, size1 <= size2 else {
            throw AuditChainError(.sizeOutOfRange, "a tree of \(size1) leaves cannot be a prefix of one of \(size2)")
        }
        if size1 == 0 { return try verifyExtendsEmptyTree(size2: size2, root1: root1, root2: root2, proof: proof) }
        if size1 == size2 { return try verifySameTree(size: size1, root1: root1, root2: root2, proof: proof) }
        try verifyProperPrefix(size1: size1, size2: size2, root1: root1, root2: root2, proof: proof)
    }

    // MARK: - Consistency cases

    private static func verifyExtendsEmptyTree(size2: Int, root1: [UInt8], root2: [UInt8],
                                               proof: [[UInt8]]) throws(AuditChainError) {
        guard proof.isEmpty else { throw tooLong(proof, "consistency", 0, size2) }
        guard root1 == MerkleHash.emptyRoot else {
            throw AuditChainError(.rootMismatch, "the first root is not the root of the empty tree")
        }
        guard size2 > 0 || root2 == MerkleHash.emptyRoot else {
            throw AuditChainError(.rootMismatch, "the second root is not the root of the empty tree")
        }
    }

    private static func verifySameTree(size: Int, root1: [UInt8], root2: [UInt8],
                                       proof: [[UInt8]]) throws(AuditChainError) {
        guard proof.isEmpty else { throw tooLong(proof, "consistency", size, size) }
        guard root1 == root2 else {
            throw AuditChainError(.rootMismatch, "two different roots for the same tree of \(size) leaves")
        }
    }

    /// RFC 9162 §2.1.4.2 for 0 < size1 < size2.
    private static func verifyProperPrefix(size1: Int, size2: Int, root1: [UInt8], root2: [UInt8],
                                           proof: [[UInt8]]) throws(AuditChainError) {
        // 1. If consistency_path is an empty array, fail.
        guard let head = proof.first else { throw tooShort(proof, "consistency", size1, size2) }
        // 2. If first is an exact power of 2, prepend first_hash: the old tree is then a complete
        // subtree of the new one, and the proof leaves out the hash the verifier already has.
        let prepends = size1 & (size1 - 1) == 0
        let path = prepends ? proof[...] : proof.dropFirst()
        // 3. Set fn to first - 1 and sn to second - 1.
        var fn = size1 - 1, sn = size2 - 1
        // 4. If LSB(fn) is set, right-shift both until LSB(fn) is not set.
        while fn & 1 == 1 { fn >>= 1; sn >>= 1 }
        // 5. Set both fr and sr to the first value in the consistency_path array.
        var fr = prepends ? root1 : head
        try MerkleHash.require(fr, "proof hash")
        var sr = fr
        // 6. For each subsequent value c in the consistency_path array:
        for c in path {
            // a. If sn is 0, stop and fail.
            guard sn != 0 else { throw tooLong(proof, "consistency", size1, size2) }
            try MerkleHash.require(c, "proof hash")
            // b. If LSB(fn) is set, or if fn is equal to sn, c is a left sibling of both paths:
            if fn & 1 == 1 || fn == sn {
                fr = MerkleHash.node(c, fr)
                sr = MerkleHash.node(c, sr)
                // iii. If LSB(fn) is not set, right-shift both until LSB(fn) is set or fn is 0.
                while fn & 1 == 0, fn != 0 { fn >>= 1; sn >>= 1 }
            } else {
                // Otherwise c is a right sibling that only the new tree has.
                sr = MerkleHash.node(sr, c)
            }
            // c. Finally, right-shift both fn and sn one time.
            fn >>= 1; sn >>= 1
        }
        // 7. sn must be 0, fr must equal first_hash and sr must equal second_hash.
        guard sn == 0 else { throw tooShort(proof, "consistency", size1, size2) }
        guard fr == root1 else {
            throw AuditChainError(.rootMismatch, "the consistency proof does not lead to the root of the tree of \(size1) leaves")
        }
        guard sr == root2 else {
            throw AuditChainError(.rootMismatch, "the consistency proof does not lead to the root of the tree of \(size2) leaves")
        }
    }

    // MARK: - Messages

    private static func tooLong(_ proof: [[UInt8]], _ kind: String, _ first: Int, _ second: Int) -> AuditChainError {
        AuditChainError(.wrongProofLength, "the \(kind) proof for (\(first), \(second)) has more than the needed hashes (\(proof.count) given)")
    }

    private static func tooShort(_ proof: [[UInt8]], _ kind: String, _ first: Int, _ second: Int) -> AuditChainError {
        AuditChainError(.wrongProofLength, "the \(kind) proof for (\(first), \(second)) has fewer than the needed hashes (\(proof.count) given)")
    }
}
