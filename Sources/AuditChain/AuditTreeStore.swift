import CryptoVault

/// The audit log's Merkle tree, kept in the vault database: leaf hashes in `audit_entries`, and the hash
/// of every complete, aligned subtree of two or more leaves in `audit_nodes` (level ≥ 1), written once
/// when its last leaf arrives. Tree heads take O(log n) lookups and proofs O(log² n), at any size.
struct AuditTreeStore {
    let database: Database

    var size: Int {
        // The last sequence number plus one: an index lookup, where count(*) would scan the table.
        get throws { Int(try database.queryOne("SELECT seq FROM audit_entries ORDER BY seq DESC LIMIT 1")?.integer("seq") ?? -1) + 1 }
    }

    /// Stores the nodes that leaf `index` completes. `leafHash` is that leaf's hash.
    func didAppendLeaf(_ index: Int, leafHash: [UInt8]) throws {
        let count = index + 1
        var right = leafHash
        var level = 1
        while count % (1 << level) == 0 {
            let nodeIndex = (count >> level) - 1
            guard let left = try node(level: level - 1, index: 2 * nodeIndex) else {
                throw AuditChainError(.malformedEntry, "the audit tree is missing node \(level - 1)/\(2 * nodeIndex)")
            }
            right = MerkleHash.node(left, right)
            try database.query("INSERT INTO audit_nodes (level, idx, hash) VALUES (?, ?, ?)",
                               [.integer(Int64(level)), .integer(Int64(nodeIndex)), .blob(right)])
            level += 1
        }
    }

    func node(level: Int, index: Int) throws -> [UInt8]? {
        if level == 0 {
            return try database.queryOne("SELECT leaf_hash FROM audit_entries WHERE seq = ?", [.integer(Int64(index))])?.blob("leaf_hash")
        }
        return try database.queryOne("SELECT hash FROM audit_nodes WHERE level = ? AND idx = ?",
                                     [.integer(Int64(level)), .integer(Int64(index))])?.blob("hash")
    }

    func rootHash(size: Int) throws -> [UInt8] {
        try requireSize(size)
        return size == 0 ? MerkleHash.emptyRoot : try MerkleRanges.subtreeHash(0..<size, stored: node)
    }

    func inclusionProof(index: Int, size: Int) throws -> [[UInt8]] {
        try requireSize(size)
        guard index >= 0, index < size else { throw AuditChainError(.indexOutOfRange, "entry \(index) is not in a log of \(size) entries") }
        return try MerkleRanges.path(index, 0..<size, stored: node)
    }

    func consistencyProof(from first: Int, to second: Int) throws -> [[UInt8]] {
        try requireSize(second)
        guard first >= 0, first <= second else {
            throw AuditChainError(.sizeOutOfRange, "a log of \(first) entries cannot be a prefix of one of \(second)")
        }
        guard first > 0, first < second else { return [] }
        return try MerkleRanges.subproof(first, 0..<second, wholeOldTree: true, stored: node)
    }

    private func requireSize(_ size: Int) throws {
        let current = try self.size
        guard size >= 0, size <= current else { throw AuditChainError(.sizeOutOfRange, "the log has \(current) entries, not \(size)") }
    }
}
