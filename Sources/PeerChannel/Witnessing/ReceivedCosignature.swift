import AuditChain
import CryptoVault

/// A cosignature this vault received on one of its own checkpoints, kept in `audit_cosignatures`
/// (SECURITY.md §9.11): the checkpoint note as the log signed it, with the witness's line appended.
public struct ReceivedCosignature: Sendable, Equatable {
    public let witnessDeviceID: [UInt8]
    /// The witness's signing key as pinned at pairing when the cosignature arrived.
    public let witnessPublicKey: [UInt8]
    public let epoch: Int
    public let treeSize: Int
    public let cosignedNote: String
    /// The cosignature's timestamp (POSIX seconds), as the witness wrote it.
    public let cosignedAt: UInt64

    /// Checks the cosignature again, with the key stored beside it, and returns its timestamp.
    public func verify() throws(PeerChannelError) -> UInt64 {
        do {
            let key = try CosignatureVerifierKey(name: WitnessIdentity.name(deviceID: witnessDeviceID), publicKey: witnessPublicKey)
            return try key.verifyCosignature(on: try SignedNote(parsing: cosignedNote))
        } catch {
            throw PeerChannelError(.cosignatureInvalid,
                "the stored cosignature by witness \(DeviceProfile.fingerprint(of: witnessDeviceID)) does not verify: \(error.message)")
        }
    }
}

/// The `audit_cosignatures` table: one row per cosignature received, oldest first.
struct ReceivedCosignatureStore {
    let database: Database

    func add(_ cosignature: ReceivedCosignature) throws {
        try database.query("""
            INSERT INTO audit_cosignatures (witness_device_id, witness_public_key, epoch, tree_size, cosigned_note, cosigned_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [.blob(cosignature.witnessDeviceID), .blob(cosignature.witnessPublicKey), .integer(Int64(cosignature.epoch)),
                  .integer(Int64(cosignature.treeSize)), .text(cosignature.cosignedNote), .integer(Int64(cosignature.cosignedAt))])
    }

    /// The newest cosignature from `witness`, or nil if it never cosigned.
    func latest(from witness: [UInt8]) throws -> ReceivedCosignature? {
        try database.queryOne("SELECT * FROM audit_cosignatures WHERE witness_device_id = ? ORDER BY id DESC LIMIT 1",
                              [.blob(witness)]).map(Self.cosignature)
    }

    /// The newest cosignature of each witness, in the order the witnesses first cosigned.
    func latestOfEachWitness() throws -> [ReceivedCosignature] {
        try database.query("""
            SELECT * FROM audit_cosignatures WHERE id IN (SELECT max(id) FROM audit_cosignatures GROUP BY witness_device_id)
            ORDER BY (SELECT min(id) FROM audit_cosignatures AS first WHERE first.witness_device_id = audit_cosignatures.witness_device_id)
            """).map(Self.cosignature)
    }

    private static func cosignature(_ row: Row) throws -> ReceivedCosignature {
        ReceivedCosignature(witnessDeviceID: try row.blob("witness_device_id"), witnessPublicKey: try row.blob("witness_public_key"),
                            epoch: try row.nonNegativeInteger("epoch"), treeSize: try row.nonNegativeInteger("tree_size"),
                            cosignedNote: try row.text("cosigned_note"), cosignedAt: UInt64(max(0, try row.integer("cosigned_at"))))
    }
}
