import CryptoVault

/// A device the owner said is no longer theirs, on one of the owner's own devices (`vaultctl peers
/// trust --peer DEVICE other` or `peers revoke`; review 17 s8, F4): who, by its signing key, when
/// (by the clock of the device that said so), on which own device, and that device's signature
/// over all four (`signingInput`), so no device passing it on can make it up or change it.
public struct SyncDemotion: Sendable, Equatable {
    public let device: DeviceID
    public let signingKey: [UInt8]
    /// Seconds since the Unix epoch, 0...2^63-1.
    public let demotedAt: UInt64
    public let demotedBy: DeviceID
    /// Ed25519 by `demotedBy`'s signing key over `signingInput`.
    public let signature: [UInt8]

    /// What the signature is over (SECURITY.md §19.9): a label no other signed message of the vault
    /// starts with, then the demoted device's id and signing key, the id of the device that demoted
    /// it and the time, each of fixed size.
    public static let signingLabel = Array("SealedVault sync demotion v1".utf8) + [0]

    public static func signingInput(device: DeviceID, signingKey: [UInt8], demotedBy: DeviceID, demotedAt: UInt64) -> [UInt8] {
        var out = signingLabel + device.bytes + signingKey + demotedBy.bytes
        SyncWireReader.append(demotedAt, size: 8, to: &out)
        return out
    }

    public init(device: DeviceID, signingKey: [UInt8], demotedAt: UInt64, demotedBy: DeviceID, signature: [UInt8]) {
        self.device = device
        self.signingKey = signingKey
        self.demotedAt = demotedAt
        self.demotedBy = demotedBy
        self.signature = signature
    }

    /// The demotion of `device` said on this device now, signed with this device's key.
    public init(signing device: DeviceProfile, at demotedAt: UInt64, by keys: DeviceKeys) throws {
        let input = Self.signingInput(device: device.deviceID, signingKey: device.signingPublicKey, demotedBy: keys.profile.deviceID, demotedAt: demotedAt)
        self.init(device: device.deviceID, signingKey: device.signingPublicKey, demotedAt: demotedAt, demotedBy: keys.profile.deviceID,
                  signature: try keys.signingKey.signature(for: input))
    }

    /// Whether `signature` is `demotedBy`'s, given its signing key as this vault holds it.
    public func isSigned(byKey demoterKey: [UInt8]) -> Bool {
        Ed25519.isValidSignature(signature, for: Self.signingInput(device: device, signingKey: signingKey, demotedBy: demotedBy, demotedAt: demotedAt),
                                 publicKey: demoterKey)
    }
}

/// `sync.demotions` (SECURITY.md §19.9): the devices this vault holds as demoted, passed between
/// the owner's own devices, request and answer alike. The grammar:
///
///     02 count:u16 (0...256) (device:16 signing-key:32 demoted-at:u64 (0...2^63-1) demoted-by:16 signature:64)*
///
/// devices strictly ascending, nothing after the last entry. A side sends its list only to a device
/// it trusts `mine` (to any other an empty one: who the owner no longer trusts is the owner's business).
/// The parser checks the grammar only; each signature is checked by the vault that takes the entry.
public struct SyncDemotionList: Sendable, Equatable {
    public let demotions: [SyncDemotion]

    /// Bytes of one entry.
    static let entrySize = 16 + 32 + 8 + 16 + Ed25519.signatureSize

    public init(_ demotions: [SyncDemotion]) {
        self.demotions = demotions.sorted { $0.device.bytes.lexicographicallyPrecedes($1.device.bytes) }
    }

    public func serialized() -> [UInt8] {
        var out = [SyncWire.version]
        SyncWireReader.append(UInt64(demotions.count), size: 2, to: &out)
        for entry in demotions {
            out += entry.device.bytes + entry.signingKey
            SyncWireReader.append(entry.demotedAt, size: 8, to: &out)
            out += entry.demotedBy.bytes + entry.signature
        }
        return out
    }

    public init(parsing bytes: [UInt8]) throws(SyncExchangeError) {
        var reader = SyncWireReader(bytes)
        try reader.version()
        let count = try reader.count(2, maximum: SyncWire.maximumDemotions, itemSize: Self.entrySize, "demotions")
        var demotions: [SyncDemotion] = []
        for _ in 0..<count {
            let entry = SyncDemotion(device: try reader.identifier(DeviceID.self), signingKey: try reader.take(32),
                                     demotedAt: try reader.integer(8, in: 0...UInt64(Int64.max), "a demotion's time"),
                                     demotedBy: try reader.identifier(DeviceID.self), signature: try reader.take(Ed25519.signatureSize))
            guard demotions.last.map({ $0.device.bytes.lexicographicallyPrecedes(entry.device.bytes) }) ?? true else {
                throw SyncWireReader.malformed("a demotion list's devices are not strictly ascending")
            }
            demotions.append(entry)
        }
        try reader.end()
        self.demotions = demotions
    }
}
