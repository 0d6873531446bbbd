/// The header of an EncryptedBundle. Big-endian throughout; SECURITY.md §6 has the table.
///
///     magic "VBNDL\r\n\u{1A}" (8) | version u16 = 1 | header length u16 | vault id (16)
///     | compartment id (16) | key version u32 | bundle id (16) | chunk size u32 | plaintext length u64
///     | wrap nonce (24) | wrapped data key (48) | sealed metadata length u16 | sealed metadata
///     | key commitment (32) | header MAC (32)
///
/// The MAC (HMAC-SHA-256 under the header key) covers every byte before it, so any edit to any
/// field is detected once the data key is known. `init(parsing:)` checks structure only: lengths,
/// ranges, canonical values. It never trusts a length it has not bounded.
public struct BundleHeader: Sendable, Equatable {
    public static let magic: [UInt8] = Array("VBNDL\r\n".utf8) + [0x1a]
    public static let version: UInt16 = 1
    static let fixedSize = 8 + 2 + 2 + 16 + 16 + 4 + 16 + 4 + 8 + 24 + 48 + 2 + 32 + 32
    public static let maximumSize = fixedSize + BundleMetadata.maximumEncodedSize + StreamCipher.tagSize
    /// No header is shorter: its sealed metadata holds at least the AEAD tag.
    public static let minimumSize = fixedSize + StreamCipher.tagSize
    /// Chunk sizes are powers of two from 1 KiB to 16 MiB; 64 KiB by default.
    public static let chunkSizes: ClosedRange<Int> = 1024...(16 << 20)
    public static let defaultChunkSize = 64 << 10
    /// A plaintext length of all ones: sealed from a stream whose length was not known in advance; the
    /// final chunk (its last flag) then fixes where the payload ends.
    public static let unknownLength = UInt64.max
    static let maximumPlaintextLength: UInt64 = 1 << 50

    public let vaultID: VaultID
    public let compartmentID: CompartmentID
    public internal(set) var keyVersion: UInt32
    public let bundleID: BundleID
    public let chunkSize: Int
    public let plaintextLength: UInt64
    var wrapNonce: [UInt8]
    var wrappedDataKey: [UInt8]
    let sealedMetadata: [UInt8]
    let keyCommitment: [UInt8]
    var mac: [UInt8]

    public var size: Int { Self.fixedSize + sealedMetadata.count }
    public var hasKnownLength: Bool { plaintextLength != Self.unknownLength }

    /// Every byte the MAC covers.
    func authenticatedBytes() -> [UInt8] {
        var writer = BinaryWriter()
        writer.append(Self.magic)
        writer.append(Self.version)
        writer.append(UInt16(size))
        writer.append(vaultID.bytes)
        writer.append(compartmentID.bytes)
        writer.append(keyVersion)
        writer.append(bundleID.bytes)
        writer.append(UInt32(chunkSize))
        writer.append(plaintextLength)
        writer.append(wrapNonce)
        writer.append(wrappedDataKey)
        writer.append(UInt16(sealedMetadata.count))
        writer.append(sealedMetadata)
        writer.append(keyCommitment)
        return writer.bytes
    }

    public func serialized() -> [UInt8] { authenticatedBytes() + mac }

    /// Parses the first bytes of a bundle; `bytes` may hold more than the header (it is not consumed).
    public init(parsing bytes: [UInt8]) throws {
        var reader = BinaryReader(bytes)
        do {
            guard try reader.read(8) == Self.magic else { throw Self.malformed("this is not a vault bundle (bad magic)") }
            let version = try reader.readUInt16()
            guard version == Self.version else { throw Self.malformed("format version \(version) is not supported (this vaultctl reads version 1)") }
            let declaredSize = Int(try reader.readUInt16())
            vaultID = try VaultID(bytes: try reader.read(16))
            compartmentID = try CompartmentID(bytes: try reader.read(16))
            keyVersion = try reader.readUInt32()
            bundleID = try BundleID(bytes: try reader.read(16))
            chunkSize = Int(try reader.readUInt32())
            plaintextLength = try reader.readUInt64()
            wrapNonce = try reader.read(24)
            wrappedDataKey = try reader.read(48)
            let metadataCount = Int(try reader.readUInt16())
            guard metadataCount >= StreamCipher.tagSize, metadataCount <= BundleMetadata.maximumEncodedSize + StreamCipher.tagSize else {
                throw Self.malformed("the sealed metadata length \(metadataCount) is out of range")
            }
            sealedMetadata = try reader.read(metadataCount)
            keyCommitment = try reader.read(32)
            mac = try reader.read(32)
            guard declaredSize == Self.fixedSize + metadataCount else { throw Self.malformed("the header length field is inconsistent") }
        } catch is BinaryReader.ShortRead {
            throw CryptoVaultError(.truncatedBundle, "header: the bundle ends inside its header")
        }
        try checkRanges()
    }

    private func checkRanges() throws {
        guard keyVersion >= 1 else { throw Self.malformed("key version 0 does not exist") }
        guard Self.chunkSizes.contains(chunkSize), chunkSize & (chunkSize - 1) == 0 else {
            throw Self.malformed("chunk size \(chunkSize) is not a power of two from 1 KiB to 16 MiB")
        }
        guard plaintextLength <= Self.maximumPlaintextLength || plaintextLength == Self.unknownLength else {
            throw Self.malformed("plaintext length \(plaintextLength) is out of range")
        }
    }

    init(vaultID: VaultID, compartmentID: CompartmentID, keyVersion: UInt32, bundleID: BundleID, chunkSize: Int,
         plaintextLength: UInt64, wrapNonce: [UInt8], wrappedDataKey: [UInt8], sealedMetadata: [UInt8],
         keyCommitment: [UInt8], headerKey: SecureBytes) {
        self.vaultID = vaultID
        self.compartmentID = compartmentID
        self.keyVersion = keyVersion
        self.bundleID = bundleID
        self.chunkSize = chunkSize
        self.plaintextLength = plaintextLength
        self.wrapNonce = wrapNonce
        self.wrappedDataKey = wrappedDataKey
        self.sealedMetadata = sealedMetadata
        self.keyCommitment = keyCommitment
        self.mac = []
        self.mac = HMAC.sha256(key: headerKey, message: authenticatedBytes())
    }

    /// Recomputes the MAC after a field changed (rewrap).
    mutating func reauthenticate(headerKey: SecureBytes) {
        mac = HMAC.sha256(key: headerKey, message: authenticatedBytes())
    }

    func verifyMAC(headerKey: SecureBytes) -> Bool {
        HMAC.isValidSHA256(tag: mac, key: headerKey, message: authenticatedBytes())
    }

    static func malformed(_ reason: String) -> CryptoVaultError {
        CryptoVaultError(.corruptBundle, "header: \(reason)")
    }
}
