import CryptoVault

/// A device the owner said is no longer theirs, on one of the owner's own devices (`vaultctl peers
/// trust --peer DEVICE other` or `peers revoke`; review 17 s8, F4): who, by its signing key, when
/// (by the clock of the device that said so) and on which own device.
public struct SyncDemotion: Sendable, Equatable {
    public let device: DeviceID
    public let signingKey: [UInt8]
    /// Seconds since the Unix epoch, 0...2^63-1.
    public let demotedAt: UInt64
    public let demotedBy: DeviceID

    public init(device: DeviceID, signingKey: [UInt8], demotedAt: UInt64, demotedBy: DeviceID) {
        self.device = device
        self.signingKey = signingKey
        self.demotedAt = demotedAt
        self.demotedBy = demotedBy
    }
}

/// `sync.demotions` (SECURITY.md §19.9): the devices this vault holds as demoted, passed between
/// the owner's own devices, request and answer alike. The grammar:
///
///     02 count:u16 (0...256) (device:16 signing-key:32 demoted-at:u64 (0...2^63-1) demoted-by:16)*
///
/// devices strictly ascending, nothing after the last entry. A side sends its list only to a device
/// it trusts `mine` (to any other an empty one: who the owner no longer trusts is the owner's business).
public struct SyncDemotionList: Sendable, Equatable {
    public let demotions: [SyncDemotion]

    /// Bytes of one entry.
    static let entrySize = 16 + 32 + 8 + 16

    public init(_ demotions: [SyncDemotion]) {
        self.demotions = demotions.sorted { $0.device.bytes.lexicographicallyPrecedes($1.device.bytes) }
    }

    public func serialized() -> [UInt8] {
        var out = [SyncWire.version]
        SyncWireReader.append(UInt64(demotions.count), size: 2, to: &out)
        for entry in demotions {
            out += entry.device.bytes + entry.signingKey
            SyncWireReader.append(entry.demotedAt, size: 8, to: &out)
            out += entry.demotedBy.bytes
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
                                     demotedBy: try reader.identifier(DeviceID.self))
            guard demotions.last.map({ $0.device.bytes.lexicographicallyPrecedes(entry.device.bytes) }) ?? true else {
                throw SyncWireReader.malformed("a demotion list's devices are not strictly ascending")
            }
            demotions.append(entry)
        }
        try reader.end()
        self.demotions = demotions
    }
}
