import CryptoVault

/// The request kinds of replication and restore (SECURITY.md §9.13) and the field sizes they share.
/// Every integer is big-endian and fixed-width; every message has exactly the length its fields give.
public enum ReplicationWire {
    public static let inventoryKind = "replicate.inventory"
    public static let announceKind = "replicate.announce"
    public static let chunkKind = "replicate.chunk"
    public static let fetchKind = "replicate.fetch"
    public static let kinds = [inventoryKind, announceKind, chunkKind, fetchKind]

    static let identifierSize = 16
    static let digestSize = SHA256.digestSize
    /// The answers to an announcement and to a chunk: the bytes received so far.
    static let receivedCount = 8

    static func received(_ count: UInt64) -> [UInt8] { bigEndian(count) }

    static func parseReceived(_ answer: [UInt8], atMost length: UInt64) throws -> UInt64 {
        var reader = ReplicationReader(answer, "the count of received bytes")
        let received = try reader.readUInt64()
        try reader.finish()
        guard received <= length else {
            throw PeerChannelError(.malformedReplicationMessage, "the peer claims \(received) bytes of a \(length)-byte bundle")
        }
        return received
    }

    static func bigEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        (0..<(Integer.bitWidth / 8)).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}

/// Reads one replication message strictly: fixed-width big-endian fields, no byte left over.
struct ReplicationReader {
    private let bytes: [UInt8]
    private let what: String
    private(set) var offset = 0

    init(_ bytes: [UInt8], _ what: String) {
        self.bytes = bytes
        self.what = what
    }

    var remaining: Int { bytes.count - offset }

    mutating func read(_ count: Int) throws -> [UInt8] {
        guard count <= remaining else {
            throw PeerChannelError(.malformedReplicationMessage, "\(what) ends early (\(bytes.count) bytes)")
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// The next 16 bytes as an id of the kind the field names, so no message hands raw id bytes on.
    mutating func readIdentifier<Kind: IdentifierKind>(_: Kind.Type = Kind.self) throws -> TypedIdentifier<Kind> {
        let bytes = try read(ReplicationWire.identifierSize)
        do {
            return try TypedIdentifier(bytes: bytes)
        } catch {
            throw PeerChannelError(.malformedReplicationMessage, "\(what): \(error.message)")
        }
    }

    mutating func readUInt64() throws -> UInt64 { try read(8).reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func readUInt32() throws -> UInt32 { try read(4).reduce(0) { $0 << 8 | UInt32($1) } }

    func finish() throws {
        guard remaining == 0 else {
            throw PeerChannelError(.malformedReplicationMessage, "\(what) has \(remaining) bytes too many")
        }
    }
}
