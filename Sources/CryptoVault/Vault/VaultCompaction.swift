import Foundation

/// What `UnlockedVault.compact()` did: the database's size before and after, in bytes.
public struct VaultCompaction: Sendable, Equatable {
    public let bytesBefore: Int
    public let bytesAfter: Int

    public var bytesFreed: Int { bytesBefore - bytesAfter }

    /// The compaction copies the database in memory: at most half of this machine's memory is asked for.
    public static var defaultMemoryCeiling: Int { Int(clamping: ProcessInfo.processInfo.physicalMemory / 2) }

    /// The `vault.compact` entry's subject: both sizes, `u64be(before) || u64be(after)` (SECURITY.md §8.1).
    /// In clear, as a key version is in `compartment.rotate`'s: a size says nothing of the content,
    /// and anyone holding the folder sees the file's size anyway.
    var subject: [UInt8] { Self.bigEndian(bytesBefore) + Self.bigEndian(bytesAfter) }

    /// Reads a `vault.compact` subject back: nil unless it is exactly two u64be sizes.
    public init?(subject: [UInt8]) {
        guard subject.count == 16 else { return nil }
        let read = { (bytes: ArraySlice<UInt8>) in bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        guard let before = Int(exactly: read(subject[0..<8])), let after = Int(exactly: read(subject[8..<16])) else { return nil }
        self.init(bytesBefore: before, bytesAfter: after)
    }

    init(bytesBefore: Int, bytesAfter: Int) {
        self.bytesBefore = bytesBefore
        self.bytesAfter = bytesAfter
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(value) >> (8 * UInt64($0))) }
    }
}

extension UnlockedVault {
    /// Compacts the vault's database (SECURITY.md §4.9, `vaultctl compact`): rewritten without the
    /// free space that deletions and rows rewritten in place leave in its pages, as `git gc` repacks
    /// a repository. Every row stays as it was (the same values, the same row ids); only the pages
    /// they sit in change.
    ///
    /// SQLite cannot run this inside a transaction, so it is not a `transaction { }` body: the
    /// rewrite commits on its own (atomically, in the write-ahead log), then its `vault.compact`
    /// entry is recorded with the sizes before and after, then the log is checkpointed and truncated
    /// so no image of the old pages stays in it. A crash between the two commits leaves a compacted
    /// vault without its entry: nothing the vault holds changed, so no record is missing for it.
    ///
    /// Refused (`.compactionRefused`, nothing changed) on a read-only vault, on the in-memory mode's
    /// copy (its entry would go with the copy), and when the database is larger than
    /// `memoryCeiling` (the fresh copy is made in memory, never in a temporary file outside the folder).
    /// The caller keeps other writers of this vault away (vaultctl refuses while a `serve` holds it);
    /// another process's reader or writer is still safe: SQLite makes it wait or read the old pages.
    public func compact(memoryCeiling: Int = VaultCompaction.defaultMemoryCeiling) throws -> VaultCompaction {
        try refuseCompaction()
        return try vault.withDatabase { database in
            guard !database.isInTransaction else {
                throw CryptoVaultError(.nestedTransaction, "a compaction was started inside a transaction; SQLite rewrites a database only outside one")
            }
            let before = try database.sizeInBytes()
            guard before <= memoryCeiling else {
                throw CryptoVaultError(.compactionRefused, """
                    the vault's database is \(before / 1_048_576) MiB and compacting it makes a copy in memory, \
                    more than the \(memoryCeiling / 1_048_576) MiB allowed (half of this machine's memory); nothing was changed
                    """)
            }
            try database.vacuumInMemory()
            let compaction = VaultCompaction(bytesBefore: before, bytesAfter: try database.sizeInBytes())
            try transaction { try $0.record(.vaultCompact, subject: compaction.subject) }
            try database.checkpointAndTruncateLog()
            return compaction
        }
    }

    private func refuseCompaction() throws {
        if vault.isReadOnly {
            throw CryptoVaultError(.compactionRefused, "the vault was opened read-only; a compaction rewrites it: nothing was changed")
        }
        if let reason = vault.inMemoryCopyReason {
            throw CryptoVaultError(.compactionRefused, InMemoryCopyMarker.refusal(of: "a compaction", reason: reason))
        }
    }
}
