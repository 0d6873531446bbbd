import CryptoVault
import Sync
import Testing
import TestSupport
import Writing

/// Snapshots over 3 MiB travel (issue 17, SECURITY.md §19.2 operation 0x0C and content form 0x03):
/// before, a snapshot whose payload was over what one record holds stayed on its device. Over the
/// real channel between two own devices, a 6 MiB document's snapshot (whole) and its next one (a
/// 3.6 MiB delta) arrive in parts, joined, checked against their digests and stored with their ids.
@Suite struct LargeSnapshotSyncTests {
    typealias F = SyncExchangeFixture

    /// Seven tables of 900,000 bytes of cells each (cells travel in the block's value, not character
    /// by character, so the document is large without a large text sequence).
    static func tables(_ ids: [BlockID], _ pattern: (Int) -> String) -> [Block] {
        ids.enumerated().map { index, id in
            let cell = String(String(repeating: pattern(index), count: 300_000 / pattern(index).utf8.count + 1).prefix(300_000))
            return Block(id: id, kind: .table, rows: [[cell, cell.uppercased(), String(cell.reversed())]])
        }
    }

    static func snapshotBytes(_ vault: TestVault, _ project: ProjectID, _ document: NodeID) throws -> [SnapshotID: [UInt8]] {
        try vault.unlocked.transaction { tx in
            let store = WritingStore(tx)
            return Dictionary(uniqueKeysWithValues: try store.snapshots(of: document, in: project).map {
                ($0.id, try store.snapshotContentBytes($0.id, of: document, in: project))
            })
        }
    }

    @Test func aSnapshotOver3MiBAndItsDeltaOver3MiBReachTheOtherDeviceInParts() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Large")
        let ids = try (0..<7).map { _ in try BlockID.random() }
        let (document, first, second) = try f.laptop.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let document = try store.addNode(.scene, titled: "Exhibits", in: project.id).id
            try store.replaceDocumentContent(of: document, in: project.id, with: DocumentContent(blocks: Self.tables(ids) { "exhibit \($0) page " }))
            let first = try store.createSnapshot(of: document, in: project.id, titled: "Filed")
            // Four of the seven tables rewritten: the next snapshot's delta is over 3 MiB, under its content.
            let rewritten = Self.tables(ids) { $0 < 4 ? "amended \($0) line " : "exhibit \($0) page " }
            try store.replaceDocumentContent(of: document, in: project.id, with: DocumentContent(blocks: rewritten))
            let second = try store.createSnapshot(of: document, in: project.id, titled: "Amended")
            return (document, first.id, second.id)
        }
        let sent = try Self.snapshotBytes(f.laptop, project.id, document)
        #expect(sent[first]!.count > 6_000_000 && sent[second]!.count > 6_000_000)
        let delta = try SnapshotDelta.between(sent[first]!, sent[second]!).serialized()
        #expect(delta.count > 3 << 20 && delta.count < sent[second]!.count, "the second travels as a delta over 3 MiB: \(delta.count)")

        let report = try f.syncLaptop()
        #expect(report.projects.first?.refusedByPeer.isEmpty == true, "\(report)")
        // Each part rode alone in a record of its own: the records the laptop committed say so.
        let commits = f.laptop.recording.events.withLock { $0.filter { $0.action == .syncRecordCommit }.count }
        #expect(commits >= 6, "the tables in records of at most 2 MiB, then each part alone: \(commits) records")

        let received = try Self.snapshotBytes(f.desk, project.id, document)
        #expect(Set(received.keys) == [first, second], "both snapshots arrived with their ids")
        #expect(received[first] == sent[first] && received[second] == sent[second], "byte for byte")
        let titles = try f.desk.unlocked.transaction { tx in try WritingStore(tx).snapshots(of: document, in: project.id).map(\.title) }
        #expect(titles == ["Filed", "Amended"])
        #expect(F.details(f.desk, .syncRecordRefused, "reason").isEmpty)
        // And once held, nothing more goes either way: no part or snapshot again, and the desk, which
        // took the records in several batches, had the project's name with the first (§19.3).
        let again = try f.syncLaptop()
        #expect(again.sent == 0 && again.received == 0, "\(again)")
        #expect(try Self.snapshotBytes(f.laptop, project.id, document) == sent)
    }
}
