import CryptoVault

/// `replicate.fetch`: the source of a replica asks for bytes of it back (restore). The answer is the
/// bytes offset ..< min(offset + count, length) of the complete replica, exactly that many.
///
///     vault id (16) || bundle id (16) || offset u64 || count u32 (1 to ChannelLimits.maximumBodyLength)
public struct ReplicaFetch: Sendable, Equatable {
    public static let size = 16 + 16 + 8 + 4

    public let vaultID: VaultID
    public let bundleID: BundleID
    public let offset: UInt64
    public let count: Int

    public init(vaultID: VaultID, bundleID: BundleID, offset: UInt64, count: Int) {
        self.vaultID = vaultID
        self.bundleID = bundleID
        self.offset = offset
        self.count = count
    }

    public init(parsing bytes: [UInt8]) throws {
        var reader = ReplicationReader(bytes, "a fetch request")
        vaultID = try reader.readIdentifier()
        bundleID = try reader.readIdentifier()
        offset = try reader.readUInt64()
        count = Int(try reader.readUInt32())
        try reader.finish()
        guard (1...ChannelLimits.maximumBodyLength).contains(count) else {
            throw PeerChannelError(.malformedReplicationMessage, "a fetch of \(count) bytes; it must be 1 to \(ChannelLimits.maximumBodyLength)")
        }
    }

    public func serialized() -> [UInt8] {
        vaultID.bytes + bundleID.bytes + ReplicationWire.bigEndian(offset) + ReplicationWire.bigEndian(UInt32(count))
    }

    /// How many bytes the answer must hold for a replica of `length` bytes.
    public func answerCount(length: UInt64) -> Int {
        offset < length ? Int(min(UInt64(count), length - offset)) : 0
    }
}
