import CryptoVault
import Foundation

/// Everything a verifier reads: the key chain, the checkpoints, and the entries in order. It comes
/// from the vault database (`audit verify`) or from an export file (`audit verify-export`).
public struct AuditSnapshot: Sendable {
    public struct Key: Sendable, Equatable {
        public let epoch: Int
        public let publicKey: [UInt8]
        /// The note by which the previous epoch's key introduced this one (nil for the genesis key).
        public let introduction: String?
    }

    public struct SignedCheckpoint: Sendable, Equatable {
        public let epoch: Int
        public let note: String
        /// The `tree_size` column beside the note in a database (nil in an export): the checkpointer
        /// reads it, so one that is not the size the note signs is a *checkpoint* failure.
        public var storedTreeSize: Int64? = nil
    }

    public let origin: String
    public let keys: [Key]
    public let checkpoints: [SignedCheckpoint]
    /// Witness cosignatures on those checkpoints, in the order received (§8.10).
    public var cosignatures: [ExportedCosignature] = []
    /// Each entry's encoding, and the leaf hash stored beside it (a database has one; an export not).
    package let entries: EntrySource

    package enum EntrySource: Sendable {
        case database(Database)
        case encoded([[UInt8]])
    }

    /// Calls `body(index, encoded entry, stored leaf hash)` for each entry in order. The bytes are
    /// lent, not copied (from a database they are SQLite's own row buffer): valid only during the call.
    func forEachEntry(_ body: (Int, UnsafeRawBufferPointer, UnsafeRawBufferPointer?) throws -> Void) throws {
        switch entries {
        case .encoded(let list):
            for (index, entry) in list.enumerated() { try entry.withUnsafeBytes { try body(index, $0, nil) } }
        case .database(let database):
            var index = 0
            try AuditTreeStore.forEachStoredEntry(in: database) { seq, entry, leafHash in
                guard seq == Int64(index) else {
                    throw AuditVerificationFailure(entry: index, reason: "entry \(index) is missing (the next stored entry is \(seq))")
                }
                try body(index, entry, leafHash)
                index += 1
            }
        }
    }

    /// The snapshot of a vault's log, read in one read transaction by the caller.
    package static func load(from database: Database, vaultID: VaultID) throws -> AuditSnapshot {
        let keys = try AuditKeyChainStore(database: database).storedKeys()
        let checkpoints = try Checkpointer.signedCheckpoints(in: database)
        let cosignatures = try AuditCosignatureStore(database: database).exported()
        return AuditSnapshot(origin: Checkpointer.origin(vaultID: vaultID), keys: keys, checkpoints: checkpoints,
                             cosignatures: cosignatures, entries: .database(database))
    }
}

/// Why verification failed, naming the first entry involved when there is one.
public struct AuditVerificationFailure: Error, CustomStringConvertible, Sendable {
    public let entry: Int?
    public let reason: String
    /// The log was read from a copy taken mid-write (see `AuditLogReader.verify`), not found altered.
    public var isInconsistentCopy = false

    public init(entry: Int?, reason: String, isInconsistentCopy: Bool = false) {
        self.entry = entry
        self.reason = reason
        self.isInconsistentCopy = isInconsistentCopy
    }

    public var description: String { reason }
}
