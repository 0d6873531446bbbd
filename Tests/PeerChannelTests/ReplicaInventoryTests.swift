import CryptoVault
@testable import PeerChannel
import Testing

@Suite("Replica inventory: read a page at a time, each page from where the last one ended")
struct ReplicaInventoryTests {
    /// A peer that answers inventory requests from a fixed, sorted list of entries, a full page at a
    /// time, and remembers where each request asked to start.
    final class ListingPeer: ChannelRequesting {
        let peer: DeviceProfile
        let entries: [ReplicaInventory.Entry]
        private(set) var firstIDs: [BundleID] = []

        init(entries: [ReplicaInventory.Entry]) throws {
            peer = try DeviceKeys(signingKey: Ed25519PrivateKey(), noiseKey: X25519PrivateKey(), name: "keeper", createdAt: 0).profile
            self.entries = entries
        }

        func request(_ kind: String, body: [UInt8]) throws -> [UInt8] {
            let request = try ReplicaInventory.Request(parsing: body)
            firstIDs.append(request.firstBundleID)
            let page = entries.filter { !$0.bundleID.bytes.lexicographicallyPrecedes(request.firstBundleID.bytes) }.prefix(ReplicaInventory.pageSize)
            return ReplicaInventory.serialize(Array(page))
        }
    }

    static func entry(_ number: Int) -> ReplicaInventory.Entry {
        let id = [UInt8](repeating: 0, count: 12) + ReplicationWire.bigEndian(UInt32(number))
        return ReplicaInventory.Entry(bundleID: try! BundleID(bytes: id), length: 10, received: 10, sha256: [UInt8](repeating: 7, count: 32))
    }

    @Test("more than a page: the second request starts just after the last id of the first")
    func twoPages() throws {
        let peer = try ListingPeer(entries: (0...ReplicaInventory.pageSize).map(Self.entry))
        let inventory = try peer.replicaInventory(of: try VaultID(bytes: [UInt8](repeating: 1, count: 16)))
        #expect(inventory.count == ReplicaInventory.pageSize + 1)
        #expect(peer.firstIDs.map(\.bytes) == [[UInt8](repeating: 0, count: 16), Self.entry(ReplicaInventory.pageSize).bundleID.bytes])
    }

    @Test("a page that is exactly full is followed by one more request, which ends the listing")
    func exactlyOnePage() throws {
        let peer = try ListingPeer(entries: (0..<ReplicaInventory.pageSize).map(Self.entry))
        #expect(try peer.replicaInventory(of: try VaultID(bytes: [UInt8](repeating: 1, count: 16))).count == ReplicaInventory.pageSize)
        #expect(peer.firstIDs.count == 2)
    }
}
