/// The right edge of an RFC 9162 Merkle tree: the roots of its complete subtrees, largest first.
/// Enough to compute the tree head at the current size in O(log n) memory, which is how a verifier
/// streams through a log of any length checking every checkpoint on the way.
struct MerkleFrontier {
    /// (height, hash) of each complete subtree on the right edge, from the leftmost (largest).
    private var subtrees: [(height: Int, hash: [UInt8])] = []
    private(set) var size = 0

    mutating func append(leafHash: [UInt8]) {
        var carry = (height: 0, hash: leafHash)
        while let last = subtrees.last, last.height == carry.height {
            subtrees.removeLast()
            carry = (carry.height + 1, MerkleHash.node(last.hash, carry.hash))
        }
        subtrees.append(carry)
        size += 1
    }

    /// MTH of the leaves so far: node(s_1, node(s_2, ... s_k)) over the complete subtrees, because
    /// RFC 9162 always splits off the largest power of two on the left.
    var rootHash: [UInt8] {
        guard var hash = subtrees.last?.hash else { return MerkleHash.emptyRoot }
        for subtree in subtrees.dropLast().reversed() { hash = MerkleHash.node(subtree.hash, hash) }
        return hash
    }
}
