import CryptoVault

/// Inserts encoded entries into `audit_entries` in groups of `rowsPerInsert`, one multi-row INSERT
/// per group, the bytes bound in place: SQLite's cost per statement (setting up, halting, resetting)
/// is then paid once per group instead of once per entry. Rows reach the table in sequence order, all
/// inside the caller's transaction; `flush()` must run before the transaction commits.
struct AuditEntryWriter {
    static let rowsPerInsert = 64

    private let database: Database
    private var group: PreparedStatement?
    private var single: PreparedStatement?
    /// The waiting entries' encodings, back to back, and where each ends.
    private var encodings: [UInt8] = []
    private var ends: [Int] = []
    private var leafHashes: [MerkleHash.Digest] = []
    private var firstSeq: UInt64 = 0

    init(database: Database) {
        self.database = database
        encodings.reserveCapacity(Self.rowsPerInsert * 256)
        ends.reserveCapacity(Self.rowsPerInsert)
        leafHashes.reserveCapacity(Self.rowsPerInsert)
    }

    /// Queues entry `seq` (the next in sequence), and inserts the group once it is full.
    mutating func add(seq: UInt64, encoded: [UInt8], leafHash: MerkleHash.Digest) throws {
        if ends.isEmpty { firstSeq = seq }
        precondition(seq == firstSeq + UInt64(ends.count), "audit entries are written in sequence order")
        encodings += encoded
        ends.append(encodings.count)
        leafHashes.append(leafHash)
        if ends.count == Self.rowsPerInsert { try flush() }
    }

    /// Inserts every waiting entry.
    mutating func flush() throws {
        guard !ends.isEmpty else { return }
        try encodings.withUnsafeBytes { encodings in
            try leafHashes.withUnsafeBytes { leafHashes in
                let values = values(encodings: encodings, leafHashes: leafHashes)
                if ends.count == Self.rowsPerInsert {
                    try groupStatement().execute(borrowing: values)
                } else {
                    let single = try singleStatement()
                    for row in 0..<ends.count { try single.execute(borrowing: Array(values[(row * 3)..<(row * 3 + 3)])) }
                }
            }
        }
        encodings.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        leafHashes.removeAll(keepingCapacity: true)
    }

    /// (seq, entry, leaf hash) for each waiting entry, in order.
    private func values(encodings: UnsafeRawBufferPointer, leafHashes: UnsafeRawBufferPointer) -> [SQLBorrowedValue] {
        var values: [SQLBorrowedValue] = []
        values.reserveCapacity(ends.count * 3)
        var start = 0
        for (row, end) in ends.enumerated() {
            let leafHash = row * MerkleHash.size
            values += [.integer(Int64(firstSeq) + Int64(row)), .blob(UnsafeRawBufferPointer(rebasing: encodings[start..<end])),
                       .blob(UnsafeRawBufferPointer(rebasing: leafHashes[leafHash..<(leafHash + MerkleHash.size)]))]
            start = end
        }
        return values
    }

    /// Prepared on first use, once per writer (a writer lives for one append).
    private mutating func groupStatement() throws -> PreparedStatement {
        if let group { return group }
        let statement = try database.prepare(Self.insert(rows: Self.rowsPerInsert))
        group = statement
        return statement
    }

    private mutating func singleStatement() throws -> PreparedStatement {
        if let single { return single }
        let statement = try database.prepare(Self.insert(rows: 1))
        single = statement
        return statement
    }

    static func insert(rows: Int) -> String {
        "INSERT INTO audit_entries (seq, entry, leaf_hash) VALUES " + Array(repeating: "(?, ?, ?)", count: rows).joined(separator: ", ")
    }
}
