import CryptoVault
import Foundation
@testable import PeerChannel
import Testing
import PrivilegedSession

@Suite("Replication and restore over the real channel (Noise over loopback TCP)")
struct ReplicationOverChannelTests {
    /// The keeper's channel server, answering with its replication service, and a client of the source.
    static func connect(_ pair: ReplicationPair, keeperService: (any ChannelService)? = nil) throws -> (server: ChannelServer, client: ChannelClient) {
        let keeperVault = pair.peer.vault.vault
        let server = try ChannelServer(address: Loopback.any, localKeys: pair.peer.keys, pinnedPeers: { try keeperVault.familyPairings() },
                                       services: [keeperService ?? pair.service])
        server.start()
        return (server, try client(of: pair, at: server.address))
    }

    static func client(of pair: ReplicationPair, at address: SocketAddress) throws -> ChannelClient {
        try ChannelClient(connectingTo: address, localKeys: pair.source.keys, peer: pair.peer.keys.profile)
    }

    @Test("a bundle larger than a message crosses the channel, resumes, and comes back")
    func replicateAndRestore() throws {
        let pair = try ReplicationPair()
        let large = try pair.put(9 << 20, seed: 1, in: pair.general)
        let small = try pair.put(1000, seed: 2, in: pair.memos)
        let (server, client) = try Self.connect(pair)
        defer { server.stop() }
        let report = try Replicator(vault: pair.source.vault, channel: client, clearing: try EgressFunnel(vault: pair.source.vault)).replicate()
        #expect(report.sentBundles == [large.bundleID, small.bundleID])
        #expect(pair.bytes(at: pair.replicaFile(large)) == pair.bytes(at: pair.sourceFile(large)))
        #expect(try Replicator(vault: pair.source.vault, channel: client, clearing: try EgressFunnel(vault: pair.source.vault)).replicate().bytesSent == 0)

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
        #expect(throws: PeerChannelError(.replicaTooLarge, "")) { try Replicator(vault: pair.source.vault, channel: client, clearing: try EgressFunnel(vault: pair.source.vault)).replicate() }
    }

    @Test("bundles of several chunks cross with the replicator's window of chunks unanswered, every byte intact")
    func pipelinedChunksArriveIntact() throws {
        let pair = try ReplicationPair()
        let bundles = [try pair.put(13 << 20, seed: 1, in: pair.general), try pair.put(9 << 20, seed: 2, in: pair.general),
                       try pair.put(1000, seed: 3, in: pair.memos)]
        let keeper = InterceptingService(pair.service) { _, _, _ in }
        let (server, client) = try Self.connect(pair, keeperService: keeper)
        defer { server.stop() }
        let observed = WindowObserver(client)
        let report = try Replicator(vault: pair.source.vault, channel: observed, clearing: try EgressFunnel(vault: pair.source.vault)).replicate()
        #expect(report.sentBundles == bundles.map(\.bundleID))
        #expect(report.bytesSent == bundles.reduce(0) { $0 + $1.sealedLength })
        #expect(observed.mostUnanswered == Replicator.chunksInFlight && Replicator.chunksInFlight > 1)
        #expect(keeper.count(of: ReplicationWire.chunkKind) == 4 + 3 + 1)
        for bundle in bundles {
            let replica = try #require(pair.bytes(at: pair.replicaFile(bundle)))
            #expect(replica == pair.bytes(at: pair.sourceFile(bundle)))
        }
        #expect(try pair.inventory().values.allSatisfy(\.isComplete))
    }

    @Test("a pairing revoked when a chunk in the middle of the window arrives: the keeper's reason ends the run, the chunk behind it is refused by the channel, which closes, and the transfer resumes on a new connection once paired again")
    func refusalInTheMiddleOfTheWindow() throws {
        let pair = try ReplicationPair(policy: ReplicaPolicy(syncInterval: 1))
        let bundle = try pair.put(13 << 20, seed: 4, in: pair.general)
        let keeperVault = pair.peer.vault, sourceID = pair.source.keys.profile.deviceID
        let keeper = InterceptingService(pair.service) { kind, earlier, _ in
            if kind == ReplicationWire.chunkKind, earlier == 1 { _ = try keeperVault.revokePairing(deviceID: sourceID) }
        }
        let (server, client) = try Self.connect(pair, keeperService: keeper)
        defer { server.stop() }
        let error = #expect(throws: PeerChannelError.self) { try Replicator(vault: pair.source.vault, channel: client, clearing: try EgressFunnel(vault: pair.source.vault)).replicate() }
        #expect(error?.code == .replicationSourceUnpaired)
        #expect(error?.message.contains("is not paired with this vault") == true)
        // Chunks 0 and 1 reached the service. Chunk 2, on its way when the refusal of 1 was read, was
        // refused by the channel itself (its device is no longer paired), which then closed (§9.9).
        #expect(keeper.count(of: ReplicationWire.chunkKind) == 2)
        let closed = errorCode { _ = try PipelinedRequestTests.pingEchoes(client, "after the refusal") }
        #expect(closed == .connectionClosed || closed == .connectionFailed)

        try pair.peer.vault.storePairing(FamilyPairing(peer: pair.source.keys.profile, role: .host, pairedAt: 2))
        let held = UInt64(ReplicaChunk.maximumDataCount)
        let again = try Self.client(of: pair, at: server.address)
        let report = try Replicator(vault: pair.source.vault, channel: again, clearing: try EgressFunnel(vault: pair.source.vault)).replicate()
        #expect(report.sentBundles == [bundle.bundleID] && report.bytesSent == bundle.sealedLength - held)
        #expect(keeper.count(of: ReplicationWire.chunkKind) == 2 + 3)
        #expect(pair.bytes(at: pair.replicaFile(bundle)) == pair.bytes(at: pair.sourceFile(bundle)))
    }

    @Test("a wrong acknowledgement ends the run as malformed; the chunk sent behind it is answered and dropped, and the next run sends the bundle whole")
    func wrongAcknowledgement() throws {
        let pair = try ReplicationPair()
        let bundle = try pair.put(9 << 20, seed: 5, in: pair.general)
        // The first chunk loses its last byte on the way, so the keeper acknowledges one byte short.
        let keeper = InterceptingService(pair.service) { kind, earlier, body in
            if kind == ReplicationWire.chunkKind, earlier == 0 { body.removeLast() }
        }
        let (server, client) = try Self.connect(pair, keeperService: keeper)
        defer { server.stop() }
        let error = #expect(throws: PeerChannelError.self) { try Replicator(vault: pair.source.vault, channel: client, clearing: try EgressFunnel(vault: pair.source.vault)).replicate() }
        #expect(error?.code == .malformedReplicationMessage)
        #expect(error?.message.contains("acknowledged \(ReplicaChunk.maximumDataCount - 1) bytes after a chunk ending at \(ReplicaChunk.maximumDataCount)") == true)
        #expect(keeper.count(of: ReplicationWire.chunkKind) == 2)
        #expect(try PipelinedRequestTests.pingEchoes(client, "after the wrong acknowledgement"))

        let report = try Replicator(vault: pair.source.vault, channel: client, clearing: try EgressFunnel(vault: pair.source.vault)).replicate()
        #expect(report.bytesSent == bundle.sealedLength)
        #expect(pair.bytes(at: pair.replicaFile(bundle)) == pair.bytes(at: pair.sourceFile(bundle)))
    }

    @Test("a connection cut in the middle of the window: the next run, on a new connection, sends only what was not durably received")
    func resumeAfterACutConnection() throws {
        let pair = try ReplicationPair(policy: ReplicaPolicy(syncInterval: 1))
        let bundle = try pair.put(13 << 20, seed: 6, in: pair.general)
        let keeper = InterceptingService(pair.service) { _, _, _ in }
        let (server, client) = try Self.connect(pair, keeperService: keeper)
        defer { server.stop() }
        // Client frames: handshake 0-1, inventory 2, announcement 3, chunk 0 is 4-68 and chunk 1 is 69-133.
        // A frame of chunk 1 altered on the path makes the keeper close the connection.
        let relay = try FrameRelay(to: server.address) { index, frame in
            index == 100 ? [frame.enumerated().map { $0.offset == 20 ? $0.element ^ 1 : $0.element }] : [frame]
        }
        let cut = try Self.client(of: pair, at: relay.address)
        let error = #expect(throws: PeerChannelError.self) { try Replicator(vault: pair.source.vault, channel: cut, clearing: try EgressFunnel(vault: pair.source.vault)).replicate() }
        #expect([.connectionClosed, .connectionFailed].contains(error?.code))
        #expect(keeper.count(of: ReplicationWire.chunkKind) == 1)
        let held = UInt64(ReplicaChunk.maximumDataCount)
        #expect(try pair.inventory()[bundle.bundleID]?.received == held)

        let report = try Replicator(vault: pair.source.vault, channel: client, clearing: try EgressFunnel(vault: pair.source.vault)).replicate()
        #expect(report.sentBundles == [bundle.bundleID] && report.bytesSent == bundle.sealedLength - held)
        #expect(keeper.count(of: ReplicationWire.chunkKind) == 1 + 3)
        #expect(pair.bytes(at: pair.replicaFile(bundle)) == pair.bytes(at: pair.sourceFile(bundle)))
    }
}

/// Passes requests on to a channel client and notes the most requests of a run that were unanswered
/// at once, counting the one being made.
private final class WindowObserver: ChannelRequesting {
    let client: ChannelClient
    private(set) var mostUnanswered = 0

    init(_ client: ChannelClient) { self.client = client }

    var peer: DeviceProfile { client.peer }

    func request(_ kind: String, body: [UInt8]) throws -> [UInt8] { try client.request(kind, body: body) }

    func requests(_ kind: String, window: Int, bodies nextBody: () throws -> [UInt8]?,
                  answered: (_ index: Int, _ answer: [UInt8]) throws -> Void) throws {
        var made = 0, done = 0
        try client.requests(kind, window: window, bodies: {
            guard let body = try nextBody() else { return nil }
            made += 1
            mostUnanswered = max(mostUnanswered, made - done)
            return body
        }) { index, answer in
            done += 1
            try answered(index, answer)
        }
    }
}
