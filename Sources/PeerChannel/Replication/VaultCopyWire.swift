import CryptoVault

/// The channel messages that give a paired keeper the owner's latest whole-vault copy, a version 2
/// backup container (SECURITY.md §13.6): an offer, then the file in chunks, in order.
public enum VaultCopyWire {
    public static let offerKind = "vaultcopy.offer"
    public static let chunkKind = "vaultcopy.chunk"
    public static let kinds = [offerKind, chunkKind]

    /// The header of a chunk body: the offset of its data in the container.
    static let chunkHeaderSize = 8
    /// The most data bytes one chunk carries: a channel body less its header.
    public static let maximumChunkDataCount = ChannelLimits.maximumBodyLength - chunkHeaderSize

    /// `vaultcopy.chunk`: offset u64 || data (1 to `maximumChunkDataCount` bytes). The answer, as to
    /// an offer, is the count of bytes the keeper holds (u64).
    static func chunk(offset: UInt64, data: ArraySlice<UInt8>) -> [UInt8] {
        ReplicationWire.bigEndian(offset) + data
    }

    static func parseChunk(_ body: [UInt8]) throws -> (offset: UInt64, data: ArraySlice<UInt8>) {
        var reader = ReplicationReader(body, "a vault copy chunk")
        let offset = try reader.readUInt64()
        guard (1...maximumChunkDataCount).contains(reader.remaining) else {
            throw PeerChannelError(.malformedReplicationMessage, "a vault copy chunk carries \(reader.remaining) bytes (1 to \(maximumChunkDataCount))")
        }
        guard UInt64(reader.remaining) <= UInt64.max - offset else {
            throw PeerChannelError(.malformedReplicationMessage, "a vault copy chunk at offset \(offset) runs past 2^64")
        }
        return (offset, body[chunkHeaderSize...])
    }
}

/// `vaultcopy.offer`, and the header of a handover (§13.6): which copy of which vault, how far its
/// audit log goes, and its length and SHA-256, before any byte of it.
///
///     vault id (16) || audit entries u64 (≥ 1) || last entry's leaf hash (32) || length u64 (≥ 48) || SHA-256 (32)
///
/// The keeper answers an offer with the bytes it holds of this very copy (u64): 0, send it all, or
/// the length, it holds this log already. It refuses an offer whose log is shorter than its copy's
/// (`vaultCopyRollback`), of another vault, or longer than it keeps.
public struct VaultCopyOffer: Sendable, Equatable {
    public static let size = 16 + 8 + 32 + 8 + 32

    public let vaultID: VaultID
    /// The number of entries of the audit log the container carries: how new the copy is.
    public let entries: UInt64
    /// The leaf hash of entry `entries − 1`: every entry chains to the one before it (§8.2), so a
    /// log whose entry at that place has this hash extends this one.
    public let lastLeafHash: [UInt8]
    public let length: UInt64
    public let sha256: [UInt8]

    public init(vaultID: VaultID, entries: UInt64, lastLeafHash: [UInt8], length: UInt64, sha256: [UInt8]) {
        self.vaultID = vaultID
        self.entries = entries
        self.lastLeafHash = lastLeafHash
        self.length = length
        self.sha256 = sha256
    }

    public init(parsing bytes: [UInt8]) throws {
        var reader = ReplicationReader(bytes, "a vault copy offer")
        vaultID = try reader.readIdentifier()
        entries = try reader.readUInt64()
        lastLeafHash = try reader.read(ReplicationWire.digestSize)
        length = try reader.readUInt64()
        sha256 = try reader.read(ReplicationWire.digestSize)
        try reader.finish()
        guard entries >= 1, length >= UInt64(BackupFormat.headerSize) else {
            throw PeerChannelError(.malformedReplicationMessage, "a vault copy offer of \(entries) entries and \(length) bytes")
        }
    }

    public func serialized() -> [UInt8] {
        vaultID.bytes + ReplicationWire.bigEndian(entries) + lastLeafHash + ReplicationWire.bigEndian(length) + sha256
    }
}
