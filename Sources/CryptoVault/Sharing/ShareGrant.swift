/// A share grant: the keys of one compartment wrapped for one paired device, signed by the device
/// that shares it (SECURITY.md §9, "Sharing compartments", has the table). Big-endian throughout.
///
///     magic "VGRNT\r\n\u{1A}" (8) | version u16 = 1 | role u8 (1 viewer, 2 editor) | issued at u64
///     | source vault id (16) | compartment id (16) | sender device id (16) | recipient device id (16)
///     | name length u8 (1...128) | name (UTF-8, NFC) | ephemeral X25519 public key (32)
///     | key count u8 (1...64) | count × (key version u32 | sealed key (48)) | Ed25519 signature (64)
///
/// `init(parsing:)` checks structure only (sizes, ranges, canonical values, no trailing bytes); the
/// signature and the sealed keys are checked by `ShareGrantWrapping` once the pinned keys are known.
public struct ShareGrant: Sendable, Equatable {
    public static let magic: [UInt8] = Array("VGRNT\r\n".utf8) + [0x1a]
    public static let version: UInt16 = 1
    public static let keyCounts = 1...64
    static let nameSizes = 1...128
    static let identifierSize = 16
    static let fixedSize = 8 + 2 + 1 + 8 + 4 * identifierSize + 1 + 32 + 1 + Ed25519.signatureSize
    public static let maximumSize = fixedSize + nameSizes.upperBound + keyCounts.upperBound * WrappedKey.size

    /// One compartment key version, sealed for the recipient.
    public struct WrappedKey: Sendable, Equatable {
        static let sealedSize = 32 + ChaChaPoly.tagSize
        static let size = 4 + sealedSize

        public let version: UInt32
        let sealedKey: [UInt8]
    }

    public let role: ShareRole
    /// Seconds since the Unix epoch, UTC, by the sender's clock: a later grant replaces an earlier one.
    public let issuedAt: Int64
    public let sourceVaultID: VaultID
    public let compartmentID: CompartmentID
    public let senderDeviceID: DeviceID
    public let recipientDeviceID: DeviceID
    public let compartmentName: String
    let ephemeralPublicKey: [UInt8]
    public let keys: [WrappedKey]
    let signature: [UInt8]

    public var keyVersions: [UInt32] { keys.map(\.version) }

    /// What both sides record about a grant: the compartment's name, the role and the key versions
    /// (decimal, comma-separated). Never a key.
    public var auditDetails: [VaultEvent.Detail] {
        [.init("name", compartmentName), .init("role", role.rawValue),
         .init("key-versions", keyVersions.map(String.init).joined(separator: ","))]
    }

    init(role: ShareRole, issuedAt: Int64, sourceVaultID: VaultID, compartmentID: CompartmentID, senderDeviceID: DeviceID,
         recipientDeviceID: DeviceID, compartmentName: String, ephemeralPublicKey: [UInt8], keys: [WrappedKey],
         signature: [UInt8]) {
        self.role = role
        self.issuedAt = issuedAt
        self.sourceVaultID = sourceVaultID
        self.compartmentID = compartmentID
        self.senderDeviceID = senderDeviceID
        self.recipientDeviceID = recipientDeviceID
        self.compartmentName = compartmentName
        self.ephemeralPublicKey = ephemeralPublicKey
        self.keys = keys
        self.signature = signature
    }

    /// Every byte before the signature.
    func unsignedBytes() -> [UInt8] {
        var writer = BinaryWriter()
        writer.append(Self.magic)
        writer.append(Self.version)
        writer.append([role.grantByte])
        writer.append(UInt64(issuedAt))
        for identifier in [sourceVaultID.bytes, compartmentID.bytes, senderDeviceID.bytes, recipientDeviceID.bytes] { writer.append(identifier) }
        let name = Array(compartmentName.utf8)
        writer.append([UInt8(name.count)])
        writer.append(name)
        writer.append(ephemeralPublicKey)
        writer.append([UInt8(keys.count)])
        for key in keys {
            writer.append(key.version)
            writer.append(key.sealedKey)
        }
        return writer.bytes
    }

    public func serialized() -> [UInt8] { unsignedBytes() + signature }

    /// Parses exactly one grant: `bytes` must hold nothing after the signature.
    public init(parsing bytes: [UInt8]) throws {
        guard bytes.count <= Self.maximumSize else { throw Self.malformed("it is longer than any grant (\(Self.maximumSize) bytes)") }
        var reader = BinaryReader(bytes)
        do {
            guard try reader.read(8) == Self.magic else { throw Self.malformed("this is not a share grant (bad magic)") }
            let version = try reader.readUInt16()
            guard version == Self.version else { throw Self.malformed("format version \(version) is not supported (this vaultctl reads version 1)") }
            let roleByte = try reader.read(1)[0]
            guard let role = ShareRole(grantByte: roleByte) else { throw Self.malformed("role \(roleByte) does not exist") }
            self.role = role
            let issuedAt = try reader.readUInt64()
            guard issuedAt <= UInt64(Int64.max) else { throw Self.malformed("the issue time is out of range") }
            self.issuedAt = Int64(issuedAt)
            sourceVaultID = try VaultID(bytes: try reader.read(Self.identifierSize))
            compartmentID = try CompartmentID(bytes: try reader.read(Self.identifierSize))
            senderDeviceID = try DeviceID(bytes: try reader.read(Self.identifierSize))
            recipientDeviceID = try DeviceID(bytes: try reader.read(Self.identifierSize))
            compartmentName = try Self.parseName(&reader)
            ephemeralPublicKey = try reader.read(X25519PrivateKey.keySize)
            keys = try Self.parseKeys(&reader)
            signature = try reader.read(Ed25519.signatureSize)
        } catch is BinaryReader.ShortRead {
            throw Self.malformed("it ends early")
        }
        guard reader.remaining == 0 else { throw Self.malformed("\(reader.remaining) bytes follow the signature") }
    }

    /// A name a compartment could have here: valid UTF-8, already NFC (one encoding per name), and
    /// within the rules of `VaultCompartment.validate`.
    private static func parseName(_ reader: inout BinaryReader) throws -> String {
        let count = Int(try reader.read(1)[0])
        guard nameSizes.contains(count) else { throw malformed("the compartment name length \(count) is out of range") }
        let bytes = try reader.read(count)
        guard let name = String(validating: bytes, as: UTF8.self), VaultCompartment.normalized(name) == name,
              (try? VaultCompartment.validate(name: name)) != nil else {
            throw malformed("the compartment name is not a valid NFC name")
        }
        return name
    }

    /// Key versions are strictly increasing, so each appears once and each nonce is used once.
    private static func parseKeys(_ reader: inout BinaryReader) throws -> [WrappedKey] {
        let count = Int(try reader.read(1)[0])
        guard keyCounts.contains(count) else { throw malformed("the key count \(count) is out of range") }
        var keys: [WrappedKey] = []
        for _ in 0..<count {
            let version = try reader.readUInt32()
            guard version > (keys.last?.version ?? 0) else { throw malformed("key versions are not strictly increasing from 1") }
            keys.append(WrappedKey(version: version, sealedKey: try reader.read(WrappedKey.sealedSize)))
        }
        return keys
    }

    static func malformed(_ reason: String) -> CryptoVaultError {
        CryptoVaultError(.malformedShareGrant, "share grant: \(reason)")
    }
}
