import CryptoVault

/// The audit log's Merkle tree, kept in the vault database: leaf hashes in `audit_entries`, and in
/// `audit_nodes` the hash of every complete, aligned subtree of at least 2^`lowestStoredLevel` leaves,
/// written once when its last leaf arrives. Smaller subtrees are recomputed from their (at most 8)
/// leaf hashes when a proof needs them: storing them would cost a row per entry for nothing a proof
/// cannot rebuild in microseconds. Tree heads take O(log n) lookups and proofs O(log² n), at any size.
struct AuditTreeStore {
    /// Level k holds subtrees of 2^k leaves; levels below this one are not stored (SECURITY.md §8.4).
    static let lowestStoredLevel = 4

    let database: Database
    private let statements: StatementCache

    init(database: Database) {
        self.database = database
        self.statements = StatementCache(database: database)
    }

    var size: Int {
        // The last sequence number plus one: an index lookup, where count(*) would scan the table.
        // A stored seq of 2^63 - 1 would overflow the size: it is an entry-sequence failure (§8.7).
        get throws {
            guard let last = try statements.first("SELECT seq FROM audit_entries ORDER BY seq DESC LIMIT 1", [])?.nonNegativeInteger("seq") else { return 0 }
            guard last < Int.max else { throw AuditTreeStore.sequenceFailure(last) }
            return last + 1
        }
    }

    /// The next sequence number and the leaf hash it chains to (zeros before the first entry).
    func tail() throws -> (UInt64, [UInt8]) {
        guard let last = try database.queryOne("SELECT seq, leaf_hash FROM audit_entries ORDER BY seq DESC LIMIT 1") else {
            return (0, [UInt8](repeating: 0, count: 32))
        }
        // A hostile last seq (2^63 - 1) has no successor SQLite can store: an entry-sequence failure.
        let seq = try last.nonNegativeInteger("seq")
        guard seq < Int.max else { throw AuditTreeStore.sequenceFailure(seq) }
        return (UInt64(seq) + 1, try last.blob("leaf_hash"))
    }

    /// Each stored entry in order, as (seq, encoded entry, leaf hash) lent from SQLite's row buffer.
    static func forEachStoredEntry(in database: Database, _ body: (Int64, UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws {
        try database.forEachRawRow("SELECT seq, entry, leaf_hash FROM audit_entries ORDER BY seq") { row in
            try body(row.integer(at: 0), row.blobBytes(at: 1), row.blobBytes(at: 2))
        }
    }

    /// The stored entries from `first` on, in order, at most `limit` of them.
    static func storedEntries(from first: Int, limit: Int, in database: Database) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        try database.forEachRawRow("SELECT entry FROM audit_entries WHERE seq >= ? ORDER BY seq LIMIT ?",
                                   [.integer(Int64(first)), .integer(Int64(limit))]) { row in entries.append(Array(row.blobBytes(at: 0))) }
        return entries
    }

    /// The newest entry's encoding, or nil for an empty log.
    static func lastStoredEntry(in database: Database) throws -> [UInt8]? {
        try database.queryOne("SELECT entry FROM audit_entries ORDER BY seq DESC LIMIT 1")?.blob("entry")
    }

    static func sequenceFailure(_ seq: Int) -> AuditChainError {
        AuditChainError(.malformedEntry, "entry-sequence: the audit log's stored entry numbers are not 0, 1, 2, ... (one is \(seq)); run 'vaultctl audit verify'")
    }

    /// An appender for a run of leaves: it holds the tree's right edge (the roots of its complete
    /// subtrees) in memory, so each new leaf costs its own hashing and the inserts of the stored nodes
    /// it completes, and no lookups.
    func appender() throws -> Appender {
        let size = try self.size
        var edge: [(height: Int, hash: MerkleHash.Digest)] = []
        var start = 0
        for level in stride(from: Int.bitWidth - 2, through: 0, by: -1) where size & (1 << level) != 0 {
            guard let hash = try node(level: level, index: start >> level) else {
                throw AuditChainError(.malformedEntry, "the audit tree is missing node \(level)/\(start >> level)")
            }
            edge.append((level, MerkleHash.digest(hash)))
            start += 1 << level
        }
        return Appender(insert: try database.prepare("INSERT INTO audit_nodes (level, idx, hash) VALUES (?, ?, ?)"),
                        frontier: MerkleFrontier(size: size, subtrees: edge))
    }

    struct Appender {
        let insert: PreparedStatement
        private(set) var frontier: MerkleFrontier

        var size: Int { frontier.size }

        /// The tree head at the current size.
        var rootHash: [UInt8] { frontier.rootHash }

        /// Adds leaf number `size` and stores every node it completes at a stored level.
        mutating func append(leafHash: MerkleHash.Digest) throws {
            let insert = self.insert
            try frontier.append(leafHash: leafHash) { level, index, hash in
                guard level >= AuditTreeStore.lowestStoredLevel else { return }
                try insert.run([.integer(Int64(level)), .integer(Int64(index)), .blob(MerkleHash.bytes(hash))])
            }
        }
    }

    /// The hash of leaves index·2^level ..< (index+1)·2^level, or nil if the log does not hold them all.
    func node(level: Int, index: Int) throws -> [UInt8]? {
        if level == 0 {
            // Every leaf below the size exists in a log whose seqs are 0, 1, 2, ...: a missing one is a
            // gap (a seq moved up), refused here because the tree's recursions assume whole leaves.
            guard let leaf = try statements.first("SELECT leaf_hash FROM audit_entries WHERE seq = ?", [.integer(Int64(index))])?.blob("leaf_hash") else {
                // Past the end of the log the leaf simply does not exist yet; below it, it is a gap.
                guard try statements.first("SELECT 1 AS later FROM audit_entries WHERE seq > ? LIMIT 1", [.integer(Int64(index))]) != nil else { return nil }
                throw AuditChainError(.malformedEntry, "entry-sequence: entry \(index) is missing from the audit log (a gap in the stored seqs); run 'vaultctl audit verify'")
            }
            guard leaf.count == MerkleHash.size else { throw AuditChainError(.malformedHash, "the stored leaf hash of audit entry \(index) is not 32 bytes") }
            return leaf
        }
        if level < Self.lowestStoredLevel { return try recomputedNode(level: level, index: index) }
        return try statements.first("SELECT hash FROM audit_nodes WHERE level = ? AND idx = ?",
                                    [.integer(Int64(level)), .integer(Int64(index))])?.blob("hash")
    }

    /// An unstored node, folded from its leaf hashes in one range read.
    private func recomputedNode(level: Int, index: Int) throws -> [UInt8]? {
        var subtree = MerkleFrontier()
        try database.forEachRawRow("SELECT leaf_hash FROM audit_entries WHERE seq >= ? AND seq < ? ORDER BY seq",
                                   [.integer(Int64(index << level)), .integer(Int64((index + 1) << level))]) { row in
            let leafHash = row.blobBytes(at: 0)
            guard leafHash.count == MerkleHash.size else {
                throw AuditChainError(.malformedHash, "the stored leaf hash of an audit entry is not 32 bytes")
            }
            subtree.append(leafHash: MerkleHash.digest(leafHash))
        }
        return subtree.size == 1 << level ? subtree.rootHash : nil
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

/// The tree's lookups, each prepared once per store rather than once per query: a proof at a million
/// entries makes dozens of them, and preparing costs more than running.
private final class StatementCache {
    private let database: Database
    private var prepared: [String: PreparedStatement] = [:]

    init(database: Database) { self.database = database }

    func first(_ sql: String, _ parameters: [SQLValue]) throws -> Row? {
        let statement = try prepared[sql] ?? database.prepare(sql)
        prepared[sql] = statement
        return try statement.run(parameters).first
    }
}
