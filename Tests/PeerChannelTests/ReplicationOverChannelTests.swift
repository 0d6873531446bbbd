import CryptoVault
import Foundation
@testable import PeerChannel
import Testing

@Suite("Replication and restore over the real channel (Noise over loopback TCP)")
struct ReplicationOverChannelTests {
    /// The keeper's channel server, answering with its replication service, and a client of the source.
    static func connect(_ pair: ReplicationPair) throws -> (server: ChannelServer, client: ChannelClient) {
        let keeperVault = pair.peer.vault.vault
        let server = try ChannelServer(address: Loopback.any, localKeys: pair.peer.keys, pinnedPeers: { try keeperVault.familyPairings() },
                                       services: [pair.service])
        server.start()
        return (server, try ChannelClient(connectingTo: server.address, localKeys: pair.source.keys, peer: pair.peer.keys.profile))
    }

    @Test("a bundle larger than a message crosses the channel, resumes, and comes back")
    func replicateAndRestore() throws {
        let pair = try ReplicationPair()
        let large = try pair.put(9 << 20, seed: 1, in: pair.general)
        let small = try pair.put(1000, seed: 2, in: pair.memos)
        let (server, client) = try Self.connect(pair)
        defer { server.stop() }
        let report = try Replicator(vault: pair.source.vault, channel: client).replicate()
        #expect(report.sentBundles == [large.bundleID, small.bundleID])
        #expect(pair.bytes(at: pair.replicaFile(large)) == pair.bytes(at: pair.sourceFile(large)))
        #expect(try Replicator(vault: pair.source.vault, channel: client).replicate().bytesSent == 0)

        let plaintext = try pair.plaintext(large)
        unlink(pair.sourceFile(large))
        let restored = try VaultRestorer(vault: pair.source.vault, channel: client).restore()
        #expect(restored.restoredBundles == [large.bundleID] && restored.isComplete)
        #expect(try pair.plaintext(large) == plaintext)
    }

    @Test("the keeper's refusal crosses the channel with its code")
    func refusalOverTheChannel() throws {
        let pair = try ReplicationPair(policy: ReplicaPolicy(maximumBundleLength: 1000))
        _ = try pair.put(5000, seed: 1, in: pair.general)
        let (server, client) = try Self.connect(pair)
        defer { server.stop() }
        #expect(throws: PeerChannelError(.replicaTooLarge, "")) { try Replicator(vault: pair.source.vault, channel: client).replicate() }
    }
}
