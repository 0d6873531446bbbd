import CryptoVault

/// `replicate.inventory`: the replicas a device keeps of the asking device's vault, a page at a time
/// in ascending bundle id order (bytewise), with the bytes received of each partial one.
///
///     request: vault id (16) || first bundle id (16)
///     answer:  count u32 (0 to pageSize) || count × entry
///     entry:   bundle id (16) || length u64 (≥ 1) || received u64 (≤ length) || SHA-256 (32)
///
/// A page lists the replicas whose bundle id is at least the first bundle id asked for, strictly
/// ascending; a page of fewer than `pageSize` entries is the last. `received == length` means the
/// replica is complete and verified.
public enum ReplicaInventory {
    public static let pageSize = 16384
    static let entrySize = 16 + 8 + 8 + 32
    static let requestSize = 16 + 16

    public struct Entry: Sendable, Equatable {
        public let bundleID: BundleID
        public let length: UInt64
        public let received: UInt64
        public let sha256: [UInt8]

        public var isComplete: Bool { received == length }

        public init(bundleID: BundleID, length: UInt64, received: UInt64, sha256: [UInt8]) {
            self.bundleID = bundleID
            self.length = length
            self.received = received
            self.sha256 = sha256
        }
    }

    public struct Request: Sendable, Equatable {
        public let vaultID: VaultID
        public let firstBundleID: BundleID

        public init(vaultID: VaultID, firstBundleID: BundleID) {
            self.vaultID = vaultID
            self.firstBundleID = firstBundleID
        }

        /// The request for the first page: from the lowest bundle id, sixteen zero bytes.
        public init(firstPageOf vaultID: VaultID) {
            // Sixteen bytes are a bundle id by construction; the parse cannot refuse them.
            self.init(vaultID: vaultID, firstBundleID: try! BundleID(bytes: [UInt8](repeating: 0, count: ReplicationWire.identifierSize)))
        }

        public init(parsing bytes: [UInt8]) throws {
            var reader = ReplicationReader(bytes, "an inventory request")
            vaultID = try reader.readIdentifier()
            firstBundleID = try reader.readIdentifier()
            try reader.finish()
        }

        public func serialized() -> [UInt8] { vaultID.bytes + firstBundleID.bytes }

        /// The request for the page after one that ended with `lastBundleID`, or nil when that id is
        /// the largest there is.
        public func next(after lastBundleID: BundleID) -> Request? {
            var next = lastBundleID.bytes
            for index in next.indices.reversed() {
                next[index] &+= 1
                // Still sixteen bytes, so still a bundle id: the parse cannot refuse it.
                if next[index] != 0 { return Request(vaultID: vaultID, firstBundleID: try! BundleID(bytes: next)) }
            }
            return nil
        }
    }

    public static func serialize(_ entries: [Entry]) -> [UInt8] {
        var bytes = ReplicationWire.bigEndian(UInt32(entries.count))
        bytes.reserveCapacity(4 + entries.count * entrySize)
        for entry in entries {
            bytes += entry.bundleID.bytes + ReplicationWire.bigEndian(entry.length) + ReplicationWire.bigEndian(entry.received) + entry.sha256
        }
        return bytes
    }

    /// Parses a page answering `request`, checking every bound the format states.
    public static func parsePage(_ bytes: [UInt8], answering request: Request) throws -> [Entry] {
        var reader = ReplicationReader(bytes, "an inventory page")
        let count = Int(try reader.readUInt32())
        guard count <= pageSize, reader.remaining == count * entrySize else {
            throw PeerChannelError(.malformedReplicationMessage, "an inventory page of \(count) entries in \(bytes.count) bytes")
        }
        var entries: [Entry] = []
        var previous = request.firstBundleID
        for index in 0..<count {
            let entry = try parseEntry(&reader)
            let ordered = index == 0 ? !entry.bundleID.bytes.lexicographicallyPrecedes(previous.bytes)
                                     : previous.bytes.lexicographicallyPrecedes(entry.bundleID.bytes)
            guard ordered else {
                throw PeerChannelError(.malformedReplicationMessage, "inventory entry \(index) is out of order")
            }
            previous = entry.bundleID
            entries.append(entry)
        }
        try reader.finish()
        return entries
    }

    private static func parseEntry(_ reader: inout ReplicationReader) throws -> Entry {
        let entry = Entry(bundleID: try reader.readIdentifier(), length: try reader.readUInt64(),
                          received: try reader.readUInt64(), sha256: try reader.read(ReplicationWire.digestSize))
        guard entry.length >= 1, entry.received <= entry.length else {
            throw PeerChannelError(.malformedReplicationMessage, "an inventory entry with \(entry.received) of \(entry.length) bytes")
        }
        return entry
    }
}
