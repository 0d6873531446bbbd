import CryptoVault
import Foundation
@testable import PeerChannel
import Testing

@Suite("Replication: a paired device keeps the bundles it lacks, verified, and resumes where it stopped")
struct ReplicationTests {
    @Test("an empty peer receives every bundle, byte for byte, as ciphertext it cannot open")
    func fullReplication() throws {
        let pair = try ReplicationPair()
        let bundles = [try pair.put(70_000, seed: 1, in: pair.general), try pair.put(5, seed: 2, in: pair.memos),
                       try pair.put(300_000, seed: 3, in: pair.general)]
        let channel = pair.channel()
        let report = try pair.replicate(over: channel)

        #expect(report.sentBundles == bundles.map(\.bundleID))
        #expect(report.bytesSent == bundles.reduce(0) { $0 + $1.sealedLength })
        #expect(channel.bytes(of: ReplicationWire.chunkKind) == Int(report.bytesSent) + 3 * ReplicaChunk.headerSize)
        for bundle in bundles {
            let replica = try #require(pair.bytes(at: pair.replicaFile(bundle)))
            #expect(replica == pair.bytes(at: pair.sourceFile(bundle)))
            #expect(pair.bytes(at: pair.replicaFile(bundle, suffix: "partial")) == nil)
            // The peer holds ciphertext of another vault: its own keys open none of it.
            #expect(throws: CryptoVaultError(.foreignBundle, "")) {
                try EncryptedBundle.open(try FileDescriptor.openForReading(pair.replicaFile(bundle)), vault: pair.peer.vault)
            }
        }
        let inventory = try pair.inventory()
        #expect(inventory.count == 3 && inventory.values.allSatisfy(\.isComplete))
    }

    @Test("a second run sends nothing")
    func secondRunSendsNothing() throws {
        let pair = try ReplicationPair()
        _ = try pair.put(70_000, seed: 1, in: pair.general)
        _ = try pair.put(10, seed: 2, in: pair.memos)
        _ = try pair.replicate()
        let channel = pair.channel()
        let report = try pair.replicate(over: channel)
        #expect(report.sentBundles.isEmpty && report.unchangedBundles == 2 && report.bytesSent == 0)
        #expect(channel.requestCounts[ReplicationWire.chunkKind] == nil && channel.requestCounts[ReplicationWire.announceKind] == nil)
    }

    @Test("a bundle whose header was rewrapped since is sent again, and its replica replaced by the new bytes")
    func rewrappedBundleIsSentAgain() throws {
        let pair = try ReplicationPair()
        let bundle = try pair.put(50_000, seed: 1, in: pair.general)
        _ = try pair.replicate()
        _ = try pair.source.vault.rotateCompartment(named: "general")
        #expect(try pair.source.vault.rewrapStored(in: try pair.source.vault.compartment(named: "general")).changed == 1)
        let report = try pair.replicate()
        #expect(report.sentBundles == [bundle.bundleID] && report.bytesSent == bundle.sealedLength)
        #expect(pair.bytes(at: pair.replicaFile(bundle)) == pair.bytes(at: pair.sourceFile(bundle)))
        #expect(try pair.replicate().sentBundles.isEmpty)
    }

    @Test("one compartment only: the other's bundles stay behind")
    func oneCompartment() throws {
        let pair = try ReplicationPair()
        let general = try pair.put(1000, seed: 1, in: pair.general)
        let memo = try pair.put(1000, seed: 2, in: pair.memos)
        let report = try pair.replicate(compartment: pair.memos)
        #expect(report.sentBundles == [memo.bundleID])
        #expect(Set(try pair.inventory().keys) == [memo.bundleID])
        #expect(try pair.replicate().sentBundles == [general.bundleID])
    }

    @Test("an interrupted transfer resumes: the second run sends only the bytes that had arrived durably")
    func resumeAfterInterruption() throws {
        let pair = try ReplicationPair(policy: ReplicaPolicy(syncInterval: 1))
        let bundle = try pair.put(9 << 20, seed: 7, in: pair.general)
        try pair.replicateBreakingAtSecondChunk()
        let held = UInt64(ReplicaChunk.maximumDataCount)
        #expect(try pair.inventory()[bundle.bundleID]?.received == held)
        #expect(pair.bytes(at: pair.replicaFile(bundle, suffix: "partial"))?.count == Int(held))

        let channel = pair.channel()
        let report = try pair.replicate(over: channel)
        #expect(report.sentBundles == [bundle.bundleID])
        #expect(report.bytesSent == bundle.sealedLength - held)
        #expect(channel.bytes(of: ReplicationWire.chunkKind) == Int(bundle.sealedLength - held) + 2 * ReplicaChunk.headerSize)
        #expect(pair.bytes(at: pair.replicaFile(bundle)) == pair.bytes(at: pair.sourceFile(bundle)))
    }

    @Test("bytes past the durable count in a partial file are cut, not trusted")
    func unacknowledgedBytesAreCut() throws {
        let pair = try ReplicationPair(policy: ReplicaPolicy(syncInterval: 1))
        let bundle = try pair.put(9 << 20, seed: 8, in: pair.general)
        try pair.replicateBreakingAtSecondChunk()
        // Garbage appended behind the peer's back (a crash between write and count, or anyone else).
        let partial = try #require(FileHandle(forWritingAtPath: pair.replicaFile(bundle, suffix: "partial")))
        partial.seekToEndOfFile()
        partial.write(Data(repeating: 0xEE, count: 1000))
        try partial.close()
        #expect(try pair.replicate().bytesSent == bundle.sealedLength - UInt64(ReplicaChunk.maximumDataCount))
        #expect(pair.bytes(at: pair.replicaFile(bundle)) == pair.bytes(at: pair.sourceFile(bundle)))
    }

    @Test("bytes written but not yet fsynced (within the sync interval) are not counted: they are sent again")
    func unsyncedBytesAreSentAgain() throws {
        let pair = try ReplicationPair(policy: ReplicaPolicy(syncInterval: 8 << 20))
        let bundle = try pair.put(9 << 20, seed: 9, in: pair.general)
        try pair.replicateBreakingAtSecondChunk()
        #expect(try pair.inventory()[bundle.bundleID]?.received == 0)
        #expect(try pair.replicate().bytesSent == bundle.sealedLength)
        #expect(pair.bytes(at: pair.replicaFile(bundle)) == pair.bytes(at: pair.sourceFile(bundle)))
    }

    @Test("a chunk altered in transit is refused for its SHA-256 and the copy is discarded")
    func tamperedChunk() throws {
        let pair = try ReplicationPair()
        let bundle = try pair.put(200_000, seed: 3, in: pair.general)
        let channel = pair.channel()
        channel.intercept = { kind, body in
            if kind == ReplicationWire.chunkKind { body[ReplicaChunk.headerSize + 150_000] ^= 0x01 }
        }
        #expect(throws: PeerChannelError(.replicaDigestMismatch, "")) { try pair.replicate(over: channel) }
        #expect(try pair.inventory().isEmpty)
        #expect(pair.bytes(at: pair.replicaFile(bundle, suffix: "partial")) == nil && pair.bytes(at: pair.replicaFile(bundle)) == nil)
        #expect(try pair.peer.auditEntries("replica.").isEmpty)
        // Nothing sticks: the next clean run sends the whole bundle.
        #expect(try pair.replicate().bytesSent == bundle.sealedLength)
    }

    @Test("a wrong SHA-256 in the announcement is refused once the bytes are in")
    func wrongAnnouncedDigest() throws {
        let pair = try ReplicationPair()
        _ = try pair.put(1000, seed: 4, in: pair.general)
        let channel = pair.channel()
        channel.intercept = { kind, body in
            if kind == ReplicationWire.announceKind { body[ReplicaAnnouncement.size - 1] ^= 0x80 }
        }
        #expect(throws: PeerChannelError(.replicaDigestMismatch, "")) { try pair.replicate(over: channel) }
        #expect(try pair.inventory().isEmpty)
    }

    @Test("bytes that are not a header of the announced vault and bundle are refused at the first chunk")
    func notABundle() throws {
        let pair = try ReplicationPair()
        let bundle = try pair.put(1000, seed: 5, in: pair.general)
        let channel = pair.channel()
        // The vault id field of the header (offset 12) of the first chunk.
        channel.intercept = { kind, body in
            if kind == ReplicationWire.chunkKind { body[ReplicaChunk.headerSize + 12] ^= 0x01 }
        }
        #expect(throws: PeerChannelError(.replicaNotABundle, "")) { try pair.replicate(over: channel) }
        #expect(try pair.inventory().isEmpty && pair.bytes(at: pair.replicaFile(bundle, suffix: "partial")) == nil)
    }

    @Test("a device that is not paired is refused, and nothing is kept for it")
    func unpairedSource() throws {
        let pair = try ReplicationPair()
        let stranger = try PairingDevice("stranger")
        let announcement = ReplicaAnnouncement(vaultID: stranger.vault.vault.vaultID, bundleID: try BundleID(bytes: [UInt8](repeating: 1, count: 16)),
                                               length: 100, sha256: [UInt8](repeating: 2, count: 32))
        #expect(throws: PeerChannelError(.replicationSourceUnpaired, "")) {
            try pair.service.respond(to: ReplicationWire.announceKind, body: announcement.serialized(), from: stranger.keys.profile)
        }
        let inventory = ReplicaInventory.Request(vaultID: stranger.vault.vault.vaultID, firstBundleID: try BundleID(bytes: [UInt8](repeating: 0, count: 16)))
        #expect(throws: PeerChannelError(.replicationSourceUnpaired, "")) {
            try pair.service.respond(to: ReplicationWire.inventoryKind, body: inventory.serialized(), from: stranger.keys.profile)
        }
        #expect(try pair.peer.vault.vault.read { try $0.query("SELECT * FROM replicas") }.isEmpty)
    }

    @Test("an announcement over the per-bundle bound is refused before any byte is taken")
    func oversizedAnnouncement() throws {
        let pair = try ReplicationPair(policy: ReplicaPolicy(maximumBundleLength: 10_000))
        let small = try pair.put(1000, seed: 1, in: pair.general)
        _ = try pair.put(20_000, seed: 2, in: pair.general)
        let channel = pair.channel()
        #expect(throws: PeerChannelError(.replicaTooLarge, "")) { try pair.replicate(over: channel) }
        #expect(Set(try pair.inventory().keys) == [small.bundleID])
        #expect(channel.requestCounts[ReplicationWire.chunkKind] == 1)
        // A length no file could have is refused the same way.
        let huge = ReplicaAnnouncement(vaultID: pair.source.vault.vault.vaultID, bundleID: try BundleID(bytes: [UInt8](repeating: 9, count: 16)),
                                       length: .max, sha256: [UInt8](repeating: 0, count: 32))
        #expect(throws: PeerChannelError(.replicaTooLarge, "")) {
            try pair.service.respond(to: ReplicationWire.announceKind, body: huge.serialized(), from: pair.source.keys.profile)
        }
    }

    @Test("a peer's replicas are bounded in total: past the quota, announcements are refused")
    func quota() throws {
        let pair = try ReplicationPair(policy: ReplicaPolicy(maximumBundleLength: 1 << 20, maximumBytesPerSource: 2000))
        let first = try pair.put(1000, seed: 1, in: pair.general)
        _ = try pair.put(1000, seed: 2, in: pair.general)
        #expect(throws: PeerChannelError(.replicaQuotaExceeded, "")) { try pair.replicate() }
        #expect(Set(try pair.inventory().keys) == [first.bundleID])
    }

    @Test("the number of replicas kept for a peer is bounded too, and an announcement too short for a bundle is refused")
    func replicaCountAndMinimumLength() throws {
        let pair = try ReplicationPair(policy: ReplicaPolicy(maximumReplicasPerSource: 1))
        let first = try pair.put(10, seed: 1, in: pair.general)
        _ = try pair.put(10, seed: 2, in: pair.general)
        #expect(throws: PeerChannelError(.replicaQuotaExceeded, "")) { try pair.replicate() }
        #expect(Set(try pair.inventory().keys) == [first.bundleID])
        let tiny = ReplicaAnnouncement(vaultID: pair.source.vault.vault.vaultID, bundleID: try BundleID(bytes: [UInt8](repeating: 4, count: 16)),
                                       length: UInt64(BundleHeader.minimumSize - 1), sha256: [UInt8](repeating: 0, count: 32))
        #expect(throws: PeerChannelError(.replicaNotABundle, "")) {
            try pair.service.respond(to: ReplicationWire.announceKind, body: tiny.serialized(), from: pair.source.keys.profile)
        }
    }

    @Test("chunks must come in order, within the announced length, for an announced bundle")
    func chunksInOrder() throws {
        let pair = try ReplicationPair()
        let from = pair.source.keys.profile
        let bundleID = try BundleID(bytes: [UInt8](repeating: 3, count: 16))
        let announcement = ReplicaAnnouncement(vaultID: pair.source.vault.vault.vaultID, bundleID: bundleID,
                                               length: 1000, sha256: [UInt8](repeating: 0, count: 32))
        func chunk(at offset: UInt64, count: Int) throws -> [UInt8] {
            try pair.service.respond(to: ReplicationWire.chunkKind, body: ReplicaChunk.body(bundleID: bundleID, offset: offset, dataCount: count),
                                     from: from)
        }
        #expect(throws: PeerChannelError(.replicaOutOfOrder, "")) { try chunk(at: 0, count: 10) }
        #expect(try pair.service.respond(to: ReplicationWire.announceKind, body: announcement.serialized(), from: from)
                == ReplicationWire.received(0))
        #expect(throws: PeerChannelError(.replicaOutOfOrder, "")) { try chunk(at: 5, count: 10) }
        #expect(throws: PeerChannelError(.replicaOutOfOrder, "")) { try chunk(at: 0, count: 1001) }
        #expect(throws: PeerChannelError(.malformedReplicationMessage, "")) {
            try pair.service.respond(to: ReplicationWire.chunkKind, body: bundleID.bytes + ReplicationWire.bigEndian(UInt64(0)), from: from)
        }
    }

    @Test("both sides record the replication in their audit logs")
    func auditEntries() throws {
        let pair = try ReplicationPair()
        let bundle = try pair.put(5000, seed: 1, in: pair.general)
        _ = try pair.replicate()
        let sent = try pair.source.auditEntries("replica.")
        #expect(sent.map(\.action) == ["replica.send"] && sent.first?.subject == bundle.bundleID.bytes)
        #expect(sent.first?.details == ["peer": pair.peer.keys.profile.fingerprint, "bytes": String(bundle.sealedLength)])
        let received = try pair.peer.auditEntries("replica.")
        #expect(received.map(\.action) == ["replica.receive"] && received.first?.subject == bundle.bundleID.bytes)
        #expect(received.first?.details == ["peer": pair.source.keys.profile.fingerprint, "bytes": String(bundle.sealedLength)])
    }
}
