import CryptoVault

/// `replicate.announce`: the source says which bundle it is about to send, how long it is and its
/// SHA-256, before any byte of it. The receiver answers with the bytes it already holds (u64), from
/// which the source continues.
///
///     vault id (16) || bundle id (16) || length u64 (≥ 1) || SHA-256 of the whole bundle file (32)
public struct ReplicaAnnouncement: Sendable, Equatable {
    public static let size = 16 + 16 + 8 + 32

    public let vaultID: VaultID
    public let bundleID: BundleID
    public let length: UInt64
    public let sha256: [UInt8]

    public init(vaultID: VaultID, bundleID: BundleID, length: UInt64, sha256: [UInt8]) {
        self.vaultID = vaultID
        self.bundleID = bundleID
        self.length = length
        self.sha256 = sha256
    }

    public init(parsing bytes: [UInt8]) throws {
        var reader = ReplicationReader(bytes, "an announcement")
        vaultID = try reader.readIdentifier()
        bundleID = try reader.readIdentifier()
        length = try reader.readUInt64()
        sha256 = try reader.read(ReplicationWire.digestSize)
        try reader.finish()
        guard length >= 1 else { throw PeerChannelError(.malformedReplicationMessage, "an announcement of an empty bundle") }
    }

    public func serialized() -> [UInt8] {
        vaultID.bytes + bundleID.bytes + ReplicationWire.bigEndian(length) + sha256
    }
}
