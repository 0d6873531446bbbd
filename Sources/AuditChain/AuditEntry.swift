import CryptoVault

/// One record of the audit log, and its canonical encoding (SECURITY.md §8):
///
///     u8 version = 1 | u64 seq | i64 time (Unix seconds, UTC) | device id (16)
///     | u8 n, actor (n bytes UTF-8) | u8 n, action (n bytes, [a-z0-9.-])
///     | u8 n, compartment id (n = 0 or 16) | u8 n, subject id (n ≤ 64)
///     | u8 count, then per detail: u8 n, name (n bytes, [a-z0-9_-]), keyed hash (32)
///     | u32 n, sealed details (0, or 24-byte nonce || ciphertext || 16-byte tag)
///     | previous entry's leaf hash (32; zeros for entry 0)
///
/// Big-endian throughout. The leaf hash is SHA-256(0x00 || encoding) (RFC 9162), and it is what the
/// next entry chains to and what the Merkle tree is built over.
public struct AuditEntry: Sendable, Equatable {
    public static let version: UInt8 = 1
    public static let maximumEncodedSize = 64 * 1024

    public let seq: UInt64
    public let time: Int64
    public let deviceID: [UInt8]
    public let actor: String
    public let action: String
    public let compartmentID: [UInt8]
    public let subjectID: [UInt8]
    public let detailHashes: [DetailHash]
    public let sealedDetails: [UInt8]
    public let previousHash: [UInt8]

    public struct DetailHash: Sendable, Equatable {
        public let name: String
        public let hash: [UInt8]
    }

    public init(seq: UInt64, time: Int64, deviceID: [UInt8], actor: String, action: String, compartmentID: [UInt8],
                subjectID: [UInt8], detailHashes: [DetailHash], sealedDetails: [UInt8], previousHash: [UInt8]) {
        self.seq = seq
        self.time = time
        self.deviceID = deviceID
        self.actor = actor
        self.action = action
        self.compartmentID = compartmentID
        self.subjectID = subjectID
        self.detailHashes = detailHashes
        self.sealedDetails = sealedDetails
        self.previousHash = previousHash
    }

    public var leafHash: [UInt8] { MerkleHash.leaf(encoded()) }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [Self.version]
        bytes += Self.bigEndian(seq, width: 8)
        bytes += Self.bigEndian(UInt64(bitPattern: time), width: 8)
        bytes += deviceID
        for field in [Array(actor.utf8), Array(action.utf8), compartmentID, subjectID] {
            bytes.append(UInt8(field.count))
            bytes += field
        }
        bytes.append(UInt8(detailHashes.count))
        for detail in detailHashes {
            bytes.append(UInt8(detail.name.utf8.count))
            bytes += Array(detail.name.utf8) + detail.hash
        }
        bytes += Self.bigEndian(UInt64(sealedDetails.count), width: 4) + sealedDetails
        return bytes + previousHash
    }

    /// The encoding, refused when it is larger than `maximumEncodedSize`: the decoder refuses such an
    /// entry, so writing one would make the log fail its own verification from that entry on.
    public func boundedEncoding() throws(AuditChainError) -> [UInt8] {
        let bytes = encoded()
        guard bytes.count <= Self.maximumEncodedSize else {
            throw AuditChainError(.invalidEvent, "the audit entry would be \(bytes.count) bytes, more than the \(Self.maximumEncodedSize) an entry may have: record fewer or shorter details")
        }
        return bytes
    }

    /// Parses one encoded entry strictly: every length bounded, every field canonical, nothing left over.
    public init(decoding bytes: [UInt8]) throws {
        var reader = EntryReader(bytes)
        guard bytes.count <= Self.maximumEncodedSize, try reader.byte() == Self.version else {
            throw AuditChainError(.malformedEntry, "an audit entry has an unknown version or is too large")
        }
        seq = try reader.integer(8)
        time = Int64(bitPattern: try reader.integer(8))
        deviceID = try reader.bytes(16)
        actor = try reader.text(maximum: 255, allowed: { _ in true })
        action = try reader.text(maximum: 64, allowed: Self.isActionCharacter)
        compartmentID = try reader.shortBytes(allowedCounts: [0, 16])
        subjectID = try reader.shortBytes(allowedCounts: Set(0...64))
        detailHashes = try (0..<Int(try reader.byte())).map { _ in
            DetailHash(name: try reader.text(maximum: 32, allowed: Self.isDetailNameCharacter), hash: try reader.bytes(32))
        }
        sealedDetails = try reader.bytes(Int(try reader.integer(4)))
        previousHash = try reader.bytes(32)
        guard reader.isAtEnd else { throw AuditChainError(.malformedEntry, "an audit entry has trailing bytes") }
        guard sealedDetails.isEmpty || sealedDetails.count >= 40 else {
            throw AuditChainError(.malformedEntry, "an audit entry's sealed details are truncated")
        }
    }

    static func isActionCharacter(_ byte: UInt8) -> Bool {
        (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2e || byte == 0x2d
    }

    static func isDetailNameCharacter(_ byte: UInt8) -> Bool {
        (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x5f || byte == 0x2d
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

/// A bounds-checked reader for `AuditEntry(decoding:)`; every failure is a malformed entry.
struct EntryReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= bytes.count - offset else {
            throw AuditChainError(.malformedEntry, "an audit entry is truncated")
        }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func byte() throws -> UInt8 { try bytes(1)[0] }

    mutating func integer(_ width: Int) throws -> UInt64 {
        try bytes(width).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func shortBytes(allowedCounts: Set<Int>) throws -> [UInt8] {
        let count = Int(try byte())
        guard allowedCounts.contains(count) else { throw AuditChainError(.malformedEntry, "an audit entry field has an impossible length") }
        return try bytes(count)
    }

    mutating func text(maximum: Int, allowed: (UInt8) -> Bool) throws -> String {
        let raw = try bytes(Int(try byte()))
        guard raw.count <= maximum, raw.allSatisfy(allowed), let text = String(validating: raw, as: UTF8.self) else {
            throw AuditChainError(.malformedEntry, "an audit entry has a malformed text field")
        }
        return text
    }
}
