import AuditChain
import CryptoVault

/// A cosignature this vault received on one of its own checkpoints, kept in `audit_cosignatures`
/// (SECURITY.md §9.11): the checkpoint note as the log signed it, with the witness's line appended.
public struct ReceivedCosignature: Sendable, Equatable {
    public let witnessDeviceID: DeviceID
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
                "the stored cosignature by witness \(witnessDeviceID.fingerprint) does not verify: \(error.message)")
        }
    }
}

/// The received cosignatures, kept by AuditChain's `AuditCosignatureStore` (the owner of
/// `audit_cosignatures`).
struct ReceivedCosignatureStore {
    let database: Database

    func add(_ cosignature: ReceivedCosignature) throws {
        try AuditCosignatureStore(database: database).add(.init(
            witnessDeviceID: cosignature.witnessDeviceID, witnessPublicKey: cosignature.witnessPublicKey, epoch: cosignature.epoch,
            treeSize: cosignature.treeSize, cosignedNote: cosignature.cosignedNote, cosignedAt: cosignature.cosignedAt))
    }

    /// The newest cosignature from `witness`, or nil if it never cosigned.
    func latest(from witness: DeviceID) throws -> ReceivedCosignature? {
        try AuditCosignatureStore(database: database).latest(from: witness).map(ReceivedCosignature.init)
    }

    /// The newest cosignature of each witness, in the order the witnesses first cosigned.
    func latestOfEachWitness() throws -> [ReceivedCosignature] {
        try AuditCosignatureStore(database: database).latestOfEachWitness().map(ReceivedCosignature.init)
    }
}

extension ReceivedCosignature {
    init(_ stored: AuditCosignatureStore.Stored) {
        self.init(witnessDeviceID: stored.witnessDeviceID, witnessPublicKey: stored.witnessPublicKey, epoch: stored.epoch,
                  treeSize: stored.treeSize, cosignedNote: stored.cosignedNote, cosignedAt: stored.cosignedAt)
    }
}
