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

    /// An appender for a run of leaves: it holds the tree's right edge (the roots of its complete
    /// subtrees) in memory, so each new leaf costs its own hashing and the inserts of the nodes it
    /// completes, and no lookups.
    func appender() throws -> Appender {
        let size = try self.size
        var edge: [(level: Int, hash: [UInt8])] = []
        var start = 0
        for level in stride(from: Int.bitWidth - 2, through: 0, by: -1) where size & (1 << level) != 0 {
            guard let hash = try node(level: level, index: start >> level) else {
                throw AuditChainError(.malformedEntry, "the audit tree is missing node \(level)/\(start >> level)")
            }
            edge.append((level, hash))
            start += 1 << level
        }
        return Appender(insert: try database.prepare("INSERT INTO audit_nodes (level, idx, hash) VALUES (?, ?, ?)"), size: size, edge: edge)
    }

    struct Appender {
        let insert: PreparedStatement
        private(set) var size: Int
        private(set) var edge: [(level: Int, hash: [UInt8])]

        init(insert: PreparedStatement, size: Int, edge: [(level: Int, hash: [UInt8])]) {
            self.insert = insert
            self.size = size
            self.edge = edge
        }

        /// Adds leaf number `size` and stores every node it completes.
        mutating func append(leafHash: [UInt8]) throws {
            var carry = (level: 0, hash: leafHash)
            while let last = edge.last, last.level == carry.level {
                edge.removeLast()
                carry = (carry.level + 1, MerkleHash.node(last.hash, carry.hash))
                try insert.run([.integer(Int64(carry.level)), .integer(Int64(size >> carry.level)), .blob(carry.hash)])
            }
            edge.append(carry)
            size += 1
        }

        /// The tree head at the current size (RFC 9162 splits off the largest subtree on the left).
        var rootHash: [UInt8] {
            guard var hash = edge.last?.hash else { return MerkleHash.emptyRoot }
            for subtree in edge.dropLast().reversed() { hash = MerkleHash.node(subtree.hash, hash) }
            return hash
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
