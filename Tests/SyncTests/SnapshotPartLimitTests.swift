import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A snapshot over 3 MiB travels in parts (SECURITY.md §19.2, 0x0C): a hostile paired device's parts
/// that join to more than the snapshot's length, a snapshot naming one part twice (a payload larger
/// than what was sent), and parts no snapshot ever names, past one snapshot's worth, are refused with
/// their reason and audited, and honest records in the same exchange are taken.
@Suite struct SnapshotPartLimitTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Long manuscript") }

    /// A document committed in the vault and received by the peer's replica.
    func start() throws -> (document: NodeID, peer: SyncReplica) {
        let document = try store { store in try store.addNode(.scene, titled: "Chapter", in: project.id).id }
        let record = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        var replica = SyncReplica(project: project.id, author: peer, devices: devices)
        #expect(replica.receive(record.encoded) == .applied(1))
        return (document, replica)
    }

    /// The peer's next record of `operations`, signed, after every record it holds (not applied there).
    /// Signed by hand, as a hostile device would: `ChangeRecord.make` never signs one a reader refuses.
    static func next(_ replica: SyncReplica, _ operations: [ChangeOperation], after extra: [ChangeRecord] = []) throws -> ChangeRecord {
        let author = replica.author!
        let parents = (extra.last.map { [$0.hash] } ?? replica.history.heads.map { replica.history.entries[$0].record.hash })
            .sorted { $0.lexicographicallyPrecedes($1) }
        let counter = replica.history.counter(of: author.device) + 1 + UInt64(extra.count)
        let lamport = (extra.last?.lamport ?? replica.history.maximumLamport) + 1
        let body = try ChangeRecordCodec.body(project: replica.project, device: author.device, counter: counter, lamport: lamport,
                                              parents: parents, operations: operations)
        let signature = try author.key.signature(for: ChangeRecordCodec.signingInput(body))
        return ChangeRecord(project: replica.project, device: author.device, counter: counter, lamport: lamport, parents: parents,
                            operations: operations, signature: signature, encoded: body + signature)
    }

    func snapshot(of document: NodeID, content: [UInt8], digests: [[UInt8]], length: Int) throws -> ChangeOperation {
        .version(.snapshot(SyncedSnapshot(id: try SnapshotID.random(), document: document, origin: .automatic, title: nil,
                                          deviceID: try AuditDeviceID.random(), createdAt: 1_780_000_000, digest: SHA256.hash(content),
                                          payload: .parts(base: nil, length: length, digests: digests))))
    }

    /// The `sync.record-refused` entries' (reason, hash) pairs.
    func refusalEntries() -> [(reason: String, hash: String)] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == .syncRecordRefused }.map { event in
                (event.details.first { $0.name == "reason" }?.value ?? "", event.details.first { $0.name == "hash" }?.value ?? "")
            }
        }
    }

    @Test func partsThatJoinToMoreThanTheSnapshotsLengthAreRefusedEvenWhenTheFirstAloneIsItsContent() throws {
        let (document, replica) = try start()
        let content = SnapshotContent.encode(DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "the whole chapter")]))
        let id = try SnapshotID.random()
        let whole = SnapshotPart(snapshot: id, bytes: content), extra = SnapshotPart(snapshot: id, bytes: Array("!".utf8))
        let parts = try Self.next(replica, [.version(.snapshotPart(whole)), .version(.snapshotPart(extra))])
        let named = try Self.next(replica, [.version(.snapshot(SyncedSnapshot(
            id: id, document: document, origin: .automatic, title: nil, deviceID: try AuditDeviceID.random(), createdAt: 1_780_000_000,
            digest: SHA256.hash(content), payload: .parts(base: nil, length: content.count, digests: [whole.digest, extra.digest]))))], after: [parts])
        let receipt = try sync { try $0.receive([parts.encoded, named.encoded], for: project.id) }
        #expect(receipt.stored == 1)
        #expect(receipt.refused.map(\.error.code) == [.malformedRecord])
        #expect(receipt.refused.first?.error.message.contains("parts are \(content.count + 1) bytes, not its \(content.count)") == true,
                "\(receipt.refused)")
        #expect(refusalEntries().map(\.reason) == ["malformedRecord"])
        #expect(refusalEntries().map(\.hash) == [ByteEncoding.hex(named.hash)])
        #expect(try store { try $0.snapshots(of: document, in: project.id) }.isEmpty)
    }

    @Test func aSnapshotNamingOnePartTwiceIsRefusedAsItIsRead() throws {
        let (document, replica) = try start()
        // One part of a content that is itself twice over: joined twice it would check, from half the bytes.
        let half = Array(repeating: UInt8(ascii: "x"), count: 64)
        let id = try SnapshotID.random()
        let part = SnapshotPart(snapshot: id, bytes: half)
        let parts = try Self.next(replica, [.version(.snapshotPart(part))])
        let named = try Self.next(replica, [try snapshot(of: document, content: half + half, digests: [part.digest, part.digest], length: 128)],
                                  after: [parts])
        let receipt = try sync { try $0.receive([parts.encoded, named.encoded], for: project.id) }
        #expect(receipt.stored == 1)
        #expect(receipt.refused.map(\.error.code) == [.malformedRecord])
        #expect(receipt.refused.first?.error.message.contains("naming one part twice") == true, "\(receipt.refused)")
        #expect(refusalEntries().map(\.reason) == ["malformedRecord"])
        #expect(refusalEntries().map(\.hash) == [ByteEncoding.hex(named.hash)])
    }

    @Test func partsNoSnapshotNamesArePastOneSnapshotsWorthRefusedAndHonestRecordsStillTaken() throws {
        var (document, replica) = try start()
        // 22 records of one 3 MiB part each, of snapshots never named: 66 MiB, past the 64 MiB one snapshot may be.
        let size = VersionOperationCodec.maximumPartBytes
        var flood: [ChangeRecord] = []
        for index in 0..<22 {
            let part = SnapshotPart(snapshot: try SnapshotID.random(), bytes: [UInt8](repeating: UInt8(index), count: size))
            flood.append(try Self.next(replica, [.version(.snapshotPart(part))], after: flood))
        }
        let receipt = try sync { try $0.receive(flood.map(\.encoded), for: project.id) }
        #expect(receipt.stored == 21)
        #expect(receipt.refused.map(\.error.code) == [.malformedRecord])
        #expect(receipt.refused.first?.error.message.contains("no snapshot of its names") == true, "\(receipt.refused)")
        #expect(refusalEntries().map(\.reason) == ["malformedRecord"])
        #expect(refusalEntries().map(\.hash) == [ByteEncoding.hex(flood[21].hash)])
        // Honest sync goes on: the peer's edit built on what the vault took is written.
        for record in flood.prefix(21) { replica.receive(record.encoded) }
        let edit = try #require(try replica.edit(document, to: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "still syncing")])))
        let honest = try sync { try $0.receive([edit.encoded], for: project.id) }
        #expect(honest.stored == 1 && honest.refused.isEmpty)
        #expect(try store { try $0.documentContent(of: document, in: project.id) }.blocks.map(\.text) == ["still syncing"])
        // And a replica rebuilt from the stored records holds the same parts, bounded alike.
        let rebuilt = try sync { try $0.replica(of: project.id) }
        #expect(rebuilt.versions.unnamedPartBytes(after: edit) == 21 * size)
    }
}
