extension AuditSnapshot {
    /// The leaf hashes of the entries at `indices` (computed from the entries' bytes, as the verifier
    /// does; an index past the end is absent), read in one pass. A whole-vault copy is named by the
    /// leaf hash of its log's last entry, and a newer copy must have the same one at that place
    /// (SECURITY.md §13.6): each entry holds the previous one's leaf hash, so that is a prefix check.
    public func leafHashes(at indices: Set<Int>) throws -> [Int: [UInt8]] {
        var found: [Int: [UInt8]] = [:]
        try forEachEntry { index, entry, _ in
            if indices.contains(index) { found[index] = MerkleHash.bytes(MerkleHash.leaf(entry)) }
        }
        return found
    }
}
