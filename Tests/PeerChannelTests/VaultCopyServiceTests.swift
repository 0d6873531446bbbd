import AuditChain
import CryptoVault
import Foundation
@testable import PeerChannel
import PrivilegedSession
import Testing

/// The keeper's side of whole-vault copies (SECURITY.md §13.6), in process: it keeps the newest copy
/// of each device, and refuses what it must before keeping anything, each time for its own reason.
struct VaultCopyServiceTests {
    /// A paired source and keeper, the keeper answering with a `VaultCopyService`.
    final class Keeper {
        let pair: ReplicationPair
        let service: VaultCopyService

        init(policy: ReplicaPolicy = ReplicaPolicy()) throws {
            pair = try ReplicationPair()
            _ = try pair.source.vault.ensureBackupKey()
            service = VaultCopyService(vault: pair.peer.vault, policy: policy)
            _ = try pair.put(30_000, seed: 7, in: pair.general)
        }

        func channel() -> InMemoryChannel {
            InMemoryChannel(from: pair.source.keys.profile, to: pair.peer.keys.profile, services: [service])
        }

        func send(over channel: InMemoryChannel? = nil) throws -> VaultCopyReport {
            try VaultCopySender(vault: pair.source.vault, channel: channel ?? self.channel(),
                                clearing: try EgressFunnel(vault: pair.source.vault)).sendFreshCopy()
        }

        var store: VaultCopyStore { VaultCopyStore(vaultDirectory: pair.peer.vault.vault.directory) }

        /// Every file in the keeper's folder for the source (kept copies and incoming ones).
        var files: [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: store.sourceFolder(pair.source.keys.profile.deviceID)))?.sorted() ?? []
        }
    }

    @Test("a copy is kept after it checks, a newer one replaces it (one file left), and each is audited on both sides with its SHA-256 and log length")
    func theNewestCopyIsKept() throws {
        let keeper = try Keeper()
        let first = try keeper.send()
        #expect(first.sent)
        _ = try keeper.pair.put(5_000, seed: 9, in: keeper.pair.memos)
        let second = try keeper.send()
        #expect(second.sent && second.offer.entries > first.offer.entries)

        let held = try #require(keeper.store.held(for: keeper.pair.source.keys.profile.deviceID))
        #expect(held.entries == second.offer.entries && held.lastLeafHash == second.offer.lastLeafHash)
        #expect(keeper.files == [(held.path as NSString).lastPathComponent])
        #expect(try VaultCopyCheck.sha256(of: held.path) == second.offer.sha256)
        let received = try keeper.pair.peer.auditEntries("vaultcopy.receive")
        #expect(received.map { $0.details["sha256"] } == [first.offer, second.offer].map { ByteEncoding.hex($0.sha256) })
        #expect(received.last?.details["entries"] == String(second.offer.entries))
        #expect(try keeper.pair.source.auditEntries("vaultcopy.send").count == 2)
    }

    @Test("a chunk with no offer before it is refused (vaultCopyOutOfOrder)")
    func aChunkWithoutAnOfferIsRefused() throws {
        let keeper = try Keeper()
        #expect(throws: PeerChannelError(.vaultCopyOutOfOrder, "")) {
            _ = try keeper.channel().request(VaultCopyWire.chunkKind, body: VaultCopyWire.chunk(offset: 0, data: [1, 2, 3][...]))
        }
        #expect(keeper.files.isEmpty)
    }

    @Test("a copy longer than the keeper keeps for a device is refused at the offer, before any byte (vaultCopyTooLarge), and the refusal is audited")
    func aCopyOverTheBoundIsRefusedAtTheOffer() throws {
        let keeper = try Keeper(policy: ReplicaPolicy(maximumBytesPerSource: 10_000))
        let channel = keeper.channel()
        #expect(throws: PeerChannelError(.vaultCopyTooLarge, "")) { try keeper.send(over: channel) }
        #expect(channel.requestCounts[VaultCopyWire.chunkKind] == nil)
        #expect(try keeper.pair.peer.auditEntries("vaultcopy.refuse").map { $0.details["reason"] } == ["vaultCopyTooLarge"])
        #expect(keeper.files.isEmpty)
    }

    @Test("bytes changed on the way are refused at the end (vaultCopyDigestMismatch): nothing is kept, the incoming files are gone")
    func changedBytesAreRefused() throws {
        let keeper = try Keeper()
        let channel = keeper.channel()
        channel.intercept = { kind, body in if kind == VaultCopyWire.chunkKind && body.count > 200 { body[200] ^= 0x01 } }
        #expect(throws: PeerChannelError(.vaultCopyDigestMismatch, "")) { try keeper.send(over: channel) }
        #expect(keeper.store.held(for: keeper.pair.source.keys.profile.deviceID) == nil)
        #expect(keeper.files.isEmpty)
        #expect(try keeper.pair.source.auditEntries("vaultcopy.send").isEmpty)
    }

    @Test("a copy that is not the one its offer describes (another log length) is refused after its check (vaultCopyRefused)")
    func aCopyUnlikeItsOfferIsRefused() throws {
        let keeper = try Keeper()
        let channel = keeper.channel()
        channel.intercept = { kind, body in
            guard kind == VaultCopyWire.offerKind else { return }
            let offer = try VaultCopyOffer(parsing: body)
            body = VaultCopyOffer(vaultID: offer.vaultID, entries: offer.entries + 1, lastLeafHash: offer.lastLeafHash,
                                  length: offer.length, sha256: offer.sha256).serialized()
        }
        #expect(throws: PeerChannelError(.vaultCopyRefused, "")) { try keeper.send(over: channel) }
        #expect(keeper.files.isEmpty)
    }

    @Test("the same log offered again is not sent twice; an older one is refused as a rollback (vaultCopyRollback)")
    func theSameLogIsNotSentAndAnOlderOneIsRefused() throws {
        let keeper = try Keeper()
        let older = keeper.pair.source.root + "/older.vaultbackup"
        _ = try BackupWriter.write(keeper.pair.source.vault.vault, to: try FileDescriptor.createExclusive(older))
        _ = try keeper.pair.put(1_000, seed: 3, in: keeper.pair.memos)
        _ = try keeper.send()
        let held = try #require(keeper.store.held(for: keeper.pair.source.keys.profile.deviceID))
        let sender = VaultCopySender(vault: keeper.pair.source.vault, channel: keeper.channel(),
                                     clearing: try EgressFunnel(vault: keeper.pair.source.vault))
        #expect(try sender.send(held.path).sent == false)
        #expect(throws: PeerChannelError(.vaultCopyRollback, "")) { try sender.send(older) }
        #expect(keeper.store.held(for: keeper.pair.source.keys.profile.deviceID) == held)
    }

    @Test("a device that is not paired with the keeper is refused (replicationSourceUnpaired)")
    func anUnpairedDeviceIsRefused() throws {
        let keeper = try Keeper()
        let stranger = try PairingDevice("stranger")
        let channel = InMemoryChannel(from: stranger.keys.profile, to: keeper.pair.peer.keys.profile, services: [keeper.service])
        let offer = VaultCopyOffer(vaultID: try VaultID(bytes: [UInt8](repeating: 1, count: 16)), entries: 1, lastLeafHash: [UInt8](repeating: 2, count: 32),
                                   length: 100, sha256: [UInt8](repeating: 3, count: 32))
        #expect(throws: PeerChannelError(.replicationSourceUnpaired, "")) {
            _ = try channel.request(VaultCopyWire.offerKind, body: offer.serialized())
        }
    }
}
