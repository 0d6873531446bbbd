import AuditChain
import CryptoVault

/// What `vaultctl audit verify` says about witnesses (SECURITY.md §9.11), from the vault alone: for
/// each device that ever cosigned this log, its newest cosignature, checked again with the key stored
/// beside it and matched to the log's own checkpoint of that size.
public struct WitnessStatus: Sendable {
    public let deviceID: DeviceID
    /// The device's name while it is paired; nil once the pairing is gone.
    public let name: String?
    public let treeSize: Int
    public let cosignedAt: UInt64
    /// Whether the cosigned checkpoint is the log's latest.
    public let coversLatestCheckpoint: Bool

    public var fingerprint: String { deviceID.fingerprint }
}

public enum WitnessReport {
    /// Every witness's newest cosignature, oldest witness first. Throws `.cosignatureInvalid` when a
    /// stored cosignature does not verify or is on a checkpoint the log does not hold.
    public static func statuses(of vault: Vault) throws -> [WitnessStatus] {
        let checkpoints = try AuditLogReader(vault: vault).checkpoints()
        let pairings = try vault.familyPairings()
        return try vault.read { try ReceivedCosignatureStore(database: $0).latestOfEachWitness() }.map { cosignature in
            let cosignedAt = try cosignature.verify()
            let held = checkpoints.first { $0.epoch == cosignature.epoch && $0.treeSize == cosignature.treeSize }
            guard let held, try sameBody(held.note, cosignature.cosignedNote) else {
                throw PeerChannelError(.cosignatureInvalid,
                    "witness \(cosignature.witnessDeviceID.fingerprint) cosigned a checkpoint of \(cosignature.treeSize) entries that this log does not hold")
            }
            let pairing = pairings.first { $0.peer.deviceID == cosignature.witnessDeviceID && $0.peer.signingPublicKey == cosignature.witnessPublicKey }
            return WitnessStatus(deviceID: cosignature.witnessDeviceID, name: pairing?.peer.name, treeSize: cosignature.treeSize,
                                 cosignedAt: cosignedAt, coversLatestCheckpoint: held == checkpoints.last)
        }
    }

    private static func sameBody(_ stored: String, _ cosigned: String) throws -> Bool {
        try SignedNote(parsing: stored).body.utf8.elementsEqual(try SignedNote(parsing: cosigned).body.utf8)
    }
}
