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
    /// The vault's audit device id (`vault_meta.device_id`, SECURITY.md §4.7.1), not the key-derived `DeviceID`.
    public let deviceID: AuditDeviceID
    public let actor: String
    public let action: String
    /// The compartment the entry is about, or nil (encoded as 0 bytes) when it is about none.
    public let compartmentID: CompartmentID?
    public let subjectID: [UInt8]
    public let detailHashes: [DetailHash]
    public let sealedDetails: [UInt8]
    public let previousHash: [UInt8]

    public struct DetailHash: Sendable, Equatable {
        public let name: String
        public let hash: [UInt8]
    }

    public init(seq: UInt64, time: Int64, deviceID: AuditDeviceID, actor: String, action: String, compartmentID: CompartmentID?,
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
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// Appends the encoding to `bytes`, so that an appender can reuse one buffer for a whole batch.
    func encode(into bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + 128 + actor.utf8.count + detailHashes.count * 65 + sealedDetails.count)
        bytes.append(Self.version)
        Self.appendBigEndian(seq, width: 8, to: &bytes)
        Self.appendBigEndian(UInt64(bitPattern: time), width: 8, to: &bytes)
        bytes += deviceID.bytes
        bytes.append(UInt8(actor.utf8.count))
        bytes += actor.utf8
        bytes.append(UInt8(action.utf8.count))
        bytes += action.utf8
        for field in [compartmentID?.bytes ?? [], subjectID] {
            bytes.append(UInt8(field.count))
            bytes += field
        }
        bytes.append(UInt8(detailHashes.count))
        for detail in detailHashes {
            bytes.append(UInt8(detail.name.utf8.count))
            bytes += detail.name.utf8
            bytes += detail.hash
        }
        Self.appendBigEndian(UInt64(sealedDetails.count), width: 4, to: &bytes)
        bytes += sealedDetails
        bytes += previousHash
    }

    /// The encoding, refused when it is larger than `maximumEncodedSize`: the decoder refuses such an
    /// entry, so writing one would make the log fail its own verification from that entry on.
    public func boundedEncoding() throws(AuditChainError) -> [UInt8] {
        let bytes = encoded()
        try Self.checkEncodedSize(bytes.count)
        return bytes
    }

    /// Refuses an encoding of `count` bytes when it is larger than `maximumEncodedSize`.
    static func checkEncodedSize(_ count: Int) throws(AuditChainError) {
        guard count <= maximumEncodedSize else {
            throw AuditChainError(.invalidEvent, "the audit entry would be \(count) bytes, more than the \(maximumEncodedSize) an entry may have: record fewer or shorter details")
        }
    }

    /// Parses one encoded entry strictly: every length bounded, every field canonical, nothing left over.
    public init(decoding bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBytes { try AuditEntry(EncodedEntry(parsing: $0)) }
    }

    init(_ encoded: EncodedEntry) {
        var detailHashes: [DetailHash] = []
        encoded.forEachDetailHash { name, hash in detailHashes.append(DetailHash(name: encoded.string(name), hash: encoded.array(hash))) }
        self.init(seq: encoded.seq, time: encoded.time, deviceID: Self.deviceID(encoded.array(encoded.deviceID)), actor: encoded.string(encoded.actor),
                  action: encoded.string(encoded.action), compartmentID: Self.compartmentID(encoded.array(encoded.compartmentID)),
                  subjectID: encoded.array(encoded.subjectID), detailHashes: detailHashes,
                  sealedDetails: encoded.array(encoded.sealedDetails), previousHash: encoded.array(encoded.previousHash))
    }

    /// The parser takes exactly 16 bytes here, so the id is never refused.
    private static func deviceID(_ bytes: [UInt8]) -> AuditDeviceID {
        try! AuditDeviceID(bytes: bytes)
    }

    /// The parser allows only 0 bytes (no compartment) or 16 here, so only 0 bytes give nil.
    private static func compartmentID(_ bytes: [UInt8]) -> CompartmentID? {
        bytes.isEmpty ? nil : try? CompartmentID(bytes: bytes)
    }

    static func isActionCharacter(_ byte: UInt8) -> Bool {
        (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2e || byte == 0x2d
    }

    static func isDetailNameCharacter(_ byte: UInt8) -> Bool {
        (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x5f || byte == 0x2d
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        appendBigEndian(value, width: width, to: &bytes)
        return bytes
    }

    static func appendBigEndian(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for index in (0..<width).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }
}
