import CryptoVault

/// The fingerprint index as bytes (SECURITY.md §11.4), for the vault to keep:
///
///     magic          "SVFP"                      4 bytes
///     version        0x02                        1   (fingerprints of §11.3 version 2)
///     shingle length 0x08                        1
///     normalisation  0x01                        1   (WordNormalizer as specified in §11.2)
///     key check      8 bytes                     8   (ShingleHasher: which key made the fingerprints)
///     count          u32be(n)                    4   n <= FingerprintIndex.maximumCount
///     fingerprints   n × u64be, strictly increasing
///
/// There is one encoding per index: sorted, no repeats, nothing after the last fingerprint. The parser
/// checks the header and the exact length before it allocates anything, so a hostile file costs
/// memory in proportion to its own size (the table takes at most 4.5 times as much).
extension FingerprintIndex {
    static let magic = Array("SVFP".utf8)
    static let formatVersion: UInt8 = 2
    static let normalisationVersion: UInt8 = 1
    static let headerSize = 4 + 1 + 1 + 1 + ShingleHasher.keyCheckSize + 4

    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        serialize(into: &bytes)
        return bytes
    }

    public func serialize(into bytes: inout [UInt8]) {
        let values = table.sortedValues()
        bytes.reserveCapacity(bytes.count + Self.headerSize + 8 * values.count)
        bytes += Self.magic
        bytes += [Self.formatVersion, UInt8(Self.shingleLength), Self.normalisationVersion]
        bytes += hasher.keyCheck
        bytes += withUnsafeBytes(of: UInt32(values.count).bigEndian, Array.init)
        for value in values { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
    }

    /// The index encoded in `bytes`, whose fingerprints must have been made with `key`.
    public init(parsing bytes: [UInt8], key: SecureBytes) throws(PrivilegedSessionError) {
        let hasher = try ShingleHasher(key: key)
        let count = try Self.parseHeader(bytes, keyCheck: hasher.keyCheck)
        var table = FingerprintTable(minimumCapacity: count)
        var previous: UInt64?
        for index in 0..<count {
            let value = Self.readUInt64(bytes, at: Self.headerSize + 8 * index)
            if let previous, value <= previous {
                throw PrivilegedSessionError(.fingerprintsOutOfOrder, "fingerprint \(index) is not greater than the one before it")
            }
            table.insert(value)
            previous = value
        }
        self.init(hasher: hasher, table: table)
    }

    /// Checks everything before the fingerprints, and the exact total length; returns the count.
    private static func parseHeader(_ bytes: [UInt8], keyCheck: [UInt8]) throws(PrivilegedSessionError) -> Int {
        guard bytes.count >= magic.count, Array(bytes.prefix(magic.count)) == magic else {
            throw PrivilegedSessionError(.notAFingerprintIndex, "the bytes do not start with a fingerprint index's magic")
        }
        guard bytes.count >= headerSize else {
            throw PrivilegedSessionError(.truncatedFingerprintIndex, "a fingerprint index header has \(headerSize) bytes, not \(bytes.count)")
        }
        guard bytes[4] == formatVersion, bytes[5] == UInt8(shingleLength), bytes[6] == normalisationVersion else {
            throw PrivilegedSessionError(.unsupportedFingerprintIndex, "fingerprint index version \(bytes[4]), shingles of \(bytes[5]), normalisation \(bytes[6]) are not supported")
        }
        guard constantTimeEquals(Array(bytes[7..<(7 + ShingleHasher.keyCheckSize)]), keyCheck) else {
            throw PrivilegedSessionError(.fingerprintKeyMismatch, "the fingerprint index was made with another key")
        }
        let count = Int(bytes[15]) << 24 | Int(bytes[16]) << 16 | Int(bytes[17]) << 8 | Int(bytes[18])
        guard count <= maximumCount else {
            throw PrivilegedSessionError(.tooManyFingerprints, "a fingerprint index holds at most \(maximumCount) fingerprints, not \(count)")
        }
        let expected = headerSize + 8 * count
        guard bytes.count >= expected else {
            throw PrivilegedSessionError(.truncatedFingerprintIndex, "\(count) fingerprints need \(expected) bytes, not \(bytes.count)")
        }
        guard bytes.count == expected else {
            throw PrivilegedSessionError(.trailingData, "\(bytes.count - expected) bytes follow the last fingerprint")
        }
        return count
    }

    private static func readUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for byte in bytes[offset..<(offset + 8)] { value = value << 8 | UInt64(byte) }
        return value
    }
}
