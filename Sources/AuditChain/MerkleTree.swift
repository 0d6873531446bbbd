/// An append-only RFC 9162 §2.1 Merkle tree over leaf hashes, which gives the tree head of any size it
/// has reached, inclusion proofs (§2.1.3.1) and consistency proofs (§2.1.4.1).
///
/// Besides the leaf hashes it keeps the hash of every complete, aligned subtree (the nodes that never
/// change once their last leaf arrives), so appending costs amortised O(1) hashes, a tree head
/// O(log n) and a proof O(log² n). The RFC's split always cuts a range into a complete left part and a
/// rest, so every subtree the RFC asks for is a stored node or a short chain of them.
public struct MerkleTree: Sendable {
    /// `levels[0]` holds the leaf hashes; `levels[k][i]` the hash of leaves `i·2^k ..< (i+1)·2^k`.
    private var levels: [[[UInt8]]] = [[]]

    /// The empty tree.
    public init() {}

    /// A tree of `leafHashes`, in order; each must be a 32-byte hash.
    public init(leafHashes: [[UInt8]]) throws(AuditChainError) {
        for leafHash in leafHashes { try append(leafHash: leafHash) }
    }

    /// The number of leaves.
    public var size: Int { levels[0].count }

    /// The leaf hashes, in order.
    public var leafHashes: [[UInt8]] { levels[0] }

    /// The tree head of the whole tree.
    public var rootHash: [UInt8] { size == 0 ? MerkleHash.emptyRoot : subtreeHash(0..<size) }

    /// Appends an entry as a leaf (hashed with the leaf prefix).
    public mutating func append(entry: [UInt8]) {
        appendChecked(MerkleHash.leaf(entry))
    }

    /// Appends an already computed leaf hash.
    public mutating func append(leafHash: [UInt8]) throws(AuditChainError) {
        try MerkleHash.require(leafHash, "leaf hash")
        appendChecked(leafHash)
    }

    /// MTH(D[0:size]): the tree head the tree had when it held `size` leaves.
    public func rootHash(size: Int) throws(AuditChainError) -> [UInt8] {
        try requireSize(size)
        return size == 0 ? MerkleHash.emptyRoot : subtreeHash(0..<size)
    }

    /// PATH(index, D[0:size]) of RFC 9162 §2.1.3.1: the sibling hashes from the leaf up to the root.
    public func inclusionProof(index: Int, size: Int) throws(AuditChainError) -> [[UInt8]] {
        try requireSize(size)
        guard index >= 0, index < size else {
            throw AuditChainError(.indexOutOfRange, "leaf \(index) is not in a tree of \(size) leaves")
        }
        return path(index, 0..<size)
    }

    /// PROOF(first, D[0:second]) of RFC 9162 §2.1.4.1: the hashes that show the tree of `first`
    /// leaves is a prefix of the tree of `second` leaves.
    ///
    /// The RFC defines the proof for 0 < first < second only. For first == second it is empty
    /// (SUBPROOF(m, D[m], true) = {}). For first == 0 it is empty too: the empty tree is a prefix of
    /// every tree, so there is nothing to prove. `MerkleVerification.verifyConsistency` accepts exactly
    /// these two conventions.
    public func consistencyProof(from first: Int, to second: Int) throws(AuditChainError) -> [[UInt8]] {
        try requireSize(second)
        guard first >= 0, first <= second else {
            throw AuditChainError(.sizeOutOfRange, "a tree of \(first) leaves cannot be a prefix of one of \(second)")
        }
        guard first > 0, first < second else { return [] }
        return subproof(first, 0..<second, wholeOldTree: true)
    }

    // MARK: - Building

    private mutating func appendChecked(_ leafHash: [UInt8]) {
        levels[0].append(leafHash)
        var level = 0
        // An even count on a level means its last two nodes just completed a node one level up.
        while levels[level].count % 2 == 0 {
            let nodes = levels[level]
            let parent = MerkleHash.node(nodes[nodes.count - 2], nodes[nodes.count - 1])
            if level + 1 == levels.count { levels.append([]) }
            levels[level + 1].append(parent)
            level += 1
        }
    }

    private func requireSize(_ size: Int) throws(AuditChainError) {
        guard size >= 0, size <= self.size else {
            throw AuditChainError(.sizeOutOfRange, "the tree has \(self.size) leaves, not \(size)")
        }
    }

    // MARK: - RFC 9162 §2.1 over ranges of the stored leaves

    private func subtreeHash(_ range: Range<Int>) -> [UInt8] {
        MerkleRanges.subtreeHash(range, stored: storedNode)
    }

    private func path(_ leaf: Int, _ range: Range<Int>) -> [[UInt8]] {
        MerkleRanges.path(leaf, range, stored: storedNode)
    }

    private func subproof(_ oldSize: Int, _ range: Range<Int>, wholeOldTree: Bool) -> [[UInt8]] {
        MerkleRanges.subproof(oldSize, range, wholeOldTree: wholeOldTree, stored: storedNode)
    }

    /// The kept hash of level `level`, index `index`, if that subtree is complete.
    private func storedNode(level: Int, index: Int) -> [UInt8]? {
        guard level < levels.count, index < levels[level].count else { return nil }
        return levels[level][index]
    }
}

/// The recursions of RFC 9162 §2.1 (MTH, PATH, SUBPROOF) over any store of complete, aligned subtree
/// hashes: `stored(level, index)` is the hash of leaves index·2^level ..< (index+1)·2^level, or nil if
/// that subtree is not complete. The in-memory `MerkleTree` and the vault's audit log share them.
enum MerkleRanges {
    typealias Lookup<Failure: Error> = (_ level: Int, _ index: Int) throws(Failure) -> [UInt8]?

    /// MTH(D[range]) for a non-empty range whose shape comes from the RFC's split.
    static func subtreeHash<Failure>(_ range: Range<Int>, stored: Lookup<Failure>) throws(Failure) -> [UInt8] {
        let count = range.count
        if count & (count - 1) == 0, range.lowerBound % count == 0,
           let hash = try stored(count.trailingZeroBitCount, range.lowerBound >> count.trailingZeroBitCount) {
            return hash
        }
        let split = range.lowerBound + largestPowerOfTwo(below: count)
        return MerkleHash.node(try subtreeHash(range.lowerBound..<split, stored: stored),
                               try subtreeHash(split..<range.upperBound, stored: stored))
    }

    /// PATH(m, D[range]) with `leaf` the absolute index m.
    static func path<Failure>(_ leaf: Int, _ range: Range<Int>, stored: Lookup<Failure>) throws(Failure) -> [[UInt8]] {
        guard range.count > 1 else { return [] }
        let split = range.lowerBound + largestPowerOfTwo(below: range.count)
        if leaf < split {
            return try path(leaf, range.lowerBound..<split, stored: stored) + [try subtreeHash(split..<range.upperBound, stored: stored)]
        }
        return try path(leaf, split..<range.upperBound, stored: stored) + [try subtreeHash(range.lowerBound..<split, stored: stored)]
    }

    /// SUBPROOF(m, D[range], b) with `oldSize` the absolute m, so the old tree ends where `range` may.
    static func subproof<Failure>(_ oldSize: Int, _ range: Range<Int>, wholeOldTree: Bool,
                                  stored: Lookup<Failure>) throws(Failure) -> [[UInt8]] {
        if oldSize == range.upperBound { return wholeOldTree ? [] : [try subtreeHash(range, stored: stored)] }
        let split = range.lowerBound + largestPowerOfTwo(below: range.count)
        if oldSize <= split {
            return try subproof(oldSize, range.lowerBound..<split, wholeOldTree: wholeOldTree, stored: stored)
                + [try subtreeHash(split..<range.upperBound, stored: stored)]
        }
        return try subproof(oldSize, split..<range.upperBound, wholeOldTree: false, stored: stored)
            + [try subtreeHash(range.lowerBound..<split, stored: stored)]
    }

    /// k of RFC 9162 §2.1.1: the largest power of two smaller than `count`, for count ≥ 2.
    static func largestPowerOfTwo(below count: Int) -> Int {
        1 << (Int.bitWidth - 1 - (count - 1).leadingZeroBitCount)
    }
}
