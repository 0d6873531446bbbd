/// The right edge of an RFC 9162 Merkle tree: the roots of its complete subtrees, largest first.
/// Enough to compute the tree head at the current size in O(log n) memory, which is how a verifier
/// streams through a log of any length checking every checkpoint on the way, and how the audit log
/// appends without reading the tree back.
struct MerkleFrontier {
    /// (height, hash) of each complete subtree on the right edge, from the leftmost (largest).
    /// Hashes are held inline: appending a leaf allocates nothing.
    private(set) var subtrees: [(height: Int, hash: MerkleHash.Digest)] = []
    private(set) var size = 0

    init() {
        subtrees.reserveCapacity(Int.bitWidth)
    }

    /// The frontier of a tree of `size` leaves, from the roots of its complete subtrees, largest first.
    init(size: Int, subtrees: [(height: Int, hash: MerkleHash.Digest)]) {
        self.size = size
        self.subtrees = subtrees
        self.subtrees.reserveCapacity(Int.bitWidth)
    }

    mutating func append(leafHash: [UInt8]) {
        append(leafHash: MerkleHash.digest(leafHash))
    }

    mutating func append(leafHash: MerkleHash.Digest) {
        append(leafHash: leafHash, completed: { _, _, _ in })
    }

    /// Adds one leaf; `completed` is told of each subtree (height ≥ 1) that the leaf completes, in
    /// increasing height, with its index among the subtrees of that height.
    mutating func append(leafHash: MerkleHash.Digest, completed: (_ height: Int, _ index: Int, _ hash: MerkleHash.Digest) throws -> Void) rethrows {
        var carry = (height: 0, hash: leafHash)
        while let last = subtrees.last, last.height == carry.height {
            subtrees.removeLast()
            carry = (carry.height + 1, MerkleHash.node(last.hash, carry.hash))
            try completed(carry.height, size >> carry.height, carry.hash)
        }
        subtrees.append(carry)
        size += 1
    }

    /// MTH of the leaves so far: node(s_1, node(s_2, ... s_k)) over the complete subtrees, because
    /// RFC 9162 always splits off the largest power of two on the left.
    var rootHash: [UInt8] {
        guard var hash = subtrees.last?.hash else { return MerkleHash.emptyRoot }
        for subtree in subtrees.dropLast().reversed() { hash = MerkleHash.node(subtree.hash, hash) }
        return MerkleHash.bytes(hash)
    }
}
