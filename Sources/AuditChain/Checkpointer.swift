import CryptoVault
import Foundation

/// Makes signed checkpoints of the audit log and evolves the signing key after each one.
///
/// Epoch e's key signs the checkpoint, then signs a key transition naming epoch e+1's public key
/// (and the checkpoint it follows), and is erased from the database. Someone who steals the vault
/// later holds only the current key, which cannot sign for an earlier epoch.
public struct Checkpointer: Sendable {
    public let interval: Int
    let clock: VaultClock

    public init(interval: Int = 256, clock: VaultClock = .system) {
        self.interval = max(1, interval)
        self.clock = clock
    }

    public static func origin(vaultID: VaultID) -> String {
        "vaultctl/" + vaultID.hex
    }

    func checkpointIfBehind(_ database: Database, vaultID: VaultID) throws {
        try database.writeTransaction {
            let size = try AuditTreeStore(database: database).size
            let signed = try lastCheckpointSize(database)
            // A checkpoint that claims more than the log holds (an edited tree_size) would stop signing
            // for good if it were trusted: it is reported at every command instead, never skipped silently.
            guard signed <= size else {
                throw AuditChainError(.verificationFailed,
                    "the latest checkpoint claims \(signed) entries but the log holds \(size); no checkpoint can be signed: run 'vaultctl audit verify'")
            }
            guard size > signed else { return }
            try checkpoint(database, vaultID: vaultID)
        }
        try database.truncateLog()
    }

    /// Signs a checkpoint of the whole log with the current epoch's key, then moves to a new epoch.
    /// Runs inside the caller's write transaction.
    func checkpoint(_ database: Database, vaultID: VaultID) throws {
        let tree = AuditTreeStore(database: database)
        let size = try tree.size
        try checkpoint(database, vaultID: vaultID, size: size, rootHash: try tree.rootHash(size: size))
    }

    /// Signs a checkpoint of the first `size` entries, whose tree head the caller computed, and
    /// returns the next epoch's key. A caller that checkpoints again in the same transaction passes
    /// that key back as `current`, sparing a read of the key it just wrote (and a key derivation).
    @discardableResult
    func checkpoint(_ database: Database, vaultID: VaultID, size: Int, rootHash: [UInt8],
                    current known: AuditKeyChainStore.SigningKey? = nil) throws -> AuditKeyChainStore.SigningKey {
        let origin = Self.origin(vaultID: vaultID)
        let keys = AuditKeyChainStore(database: database, clock: clock)
        let current = try known ?? keys.currentSigningKey(origin: origin)
        let body = try Checkpoint(origin: origin, treeSize: UInt64(size), rootHash: rootHash)
        let note = try current.signedNote(body.body, origin: origin)
        try database.query("INSERT INTO audit_checkpoints (tree_size, epoch, note, created_at) VALUES (?, ?, ?, ?)",
                           [.integer(Int64(size)), .integer(Int64(current.epoch)), .text(note), .integer(clock.now())])
        return try keys.evolve(from: current, origin: origin, after: body)
    }

    func lastCheckpointSize(_ database: Database) throws -> Int {
        try database.queryOne("SELECT tree_size FROM audit_checkpoints ORDER BY id DESC LIMIT 1")?.nonNegativeInteger("tree_size") ?? 0
    }

    // MARK: Reading (`audit_checkpoints` is read and written only in this file)

    /// Every checkpoint as stored, in the order made, for verification: the stored size is kept raw,
    /// so one that disagrees with its note is the verifier's finding, not a read error.
    static func signedCheckpoints(in database: Database) throws -> [AuditSnapshot.SignedCheckpoint] {
        try database.query("SELECT epoch, tree_size, note FROM audit_checkpoints ORDER BY id").map { row in
            AuditSnapshot.SignedCheckpoint(epoch: Int(try row.integer("epoch")), note: try row.text("note"), storedTreeSize: try row.integer("tree_size"))
        }
    }

    /// Every checkpoint, in the order made, with a negative epoch or size refused as damage.
    static func storedCheckpoints(in database: Database) throws -> [StoredCheckpoint] {
        try database.query("SELECT epoch, tree_size, note FROM audit_checkpoints ORDER BY id").map { row in
            StoredCheckpoint(epoch: try row.nonNegativeInteger("epoch"), treeSize: try row.nonNegativeInteger("tree_size"), note: try row.text("note"))
        }
    }

    /// The newest checkpoint's signed note, or nil before the first.
    static func latestNote(in database: Database) throws -> String? {
        try database.queryOne("SELECT note FROM audit_checkpoints ORDER BY id DESC LIMIT 1")?.text("note")
    }
}
