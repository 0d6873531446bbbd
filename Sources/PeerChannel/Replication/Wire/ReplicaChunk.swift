import CryptoVault

/// `replicate.chunk`: the next bytes of an announced bundle. The receiver answers with the bytes it
/// now holds (u64); when that is the announced length, the bundle verified and is kept.
///
///     bundle id (16) || offset u64 || data (1 to maximumDataCount bytes)
///
/// The data is not copied out of the request: the parsed header says where it lies in the body.
public struct ReplicaChunk: Sendable, Equatable {
    public static let headerSize = 16 + 8
    /// The most data one chunk carries: the rest of the largest request body.
    public static let maximumDataCount = ChannelLimits.maximumBodyLength - headerSize

    public let bundleID: BundleID
    public let offset: UInt64
    public let dataCount: Int

    /// Where the data lies in the request body.
    public var dataRange: Range<Int> { Self.headerSize..<(Self.headerSize + dataCount) }
    public var end: UInt64 { offset + UInt64(dataCount) }

    public init(parsing body: [UInt8]) throws {
        guard body.count > Self.headerSize, body.count <= ChannelLimits.maximumBodyLength else {
            throw PeerChannelError(.malformedReplicationMessage,
                                   "a chunk is \(body.count) bytes; it must be \(Self.headerSize + 1) to \(ChannelLimits.maximumBodyLength)")
        }
        var reader = ReplicationReader(Array(body[0..<Self.headerSize]), "a chunk header")
        bundleID = try reader.readIdentifier()
        offset = try reader.readUInt64()
        dataCount = body.count - Self.headerSize
        guard offset <= UInt64.max - UInt64(dataCount) else {
            throw PeerChannelError(.malformedReplicationMessage, "a chunk's offset overflows")
        }
    }

    /// A request body with room for `dataCount` bytes after the header, to be filled in place.
    public static func body(bundleID: BundleID, offset: UInt64, dataCount: Int) -> [UInt8] {
        var body = bundleID.bytes + ReplicationWire.bigEndian(offset)
        body.append(contentsOf: repeatElement(0, count: dataCount))
        return body
    }
}
