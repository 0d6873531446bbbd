import Appliance
import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// Records a paired device may sign that must not stop the vault that takes them (SECURITY.md §19.2,
/// §19.4): each is refused with its reason and recorded, the answering daemon keeps answering, and
/// honest sync goes on. Over a real channel on loopback, the laptop pushing to the desk's service.
@Suite(.serialized) struct HostileRecordTests {
    typealias F = SyncExchangeFixture

    static func push(_ records: [[UInt8]], _ project: ProjectID, over transport: ChannelSyncTransport) throws -> SyncPushAnswer {
        try SyncPushAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pushKind, body: SyncPushRequest(project: project, records: records).serialized()))
    }

    /// A synced project on both, its document, and the laptop's record heads to build on.
    static func synced(_ f: F) throws -> (WritingProject, NodeID, SyncAuthor, ChangeRecord) {
        let project = try F.project(f.laptop, "Notes")
        let document = try F.document(f.laptop, in: project, "Day", ["morning"])
        try f.syncLaptop()
        let author = SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey)
        let head = try f.laptop.unlocked.transaction { tx in
            try ChangeRecordCodec.parse(try VaultSync(WritingStore(tx), author: author, devices: [:]).records(of: project.id, missingFrom: [:]).last!)
        }
        return (project, document, author, head)
    }

    static func planting(_ project: ProjectID, _ author: SyncAuthor, counter: UInt64, lamport: UInt64, after parent: ChangeRecord?,
                         title: String = "Planted") throws -> ChangeRecord {
        // Signed by hand, as a hostile device would: `ChangeRecord.make` never signs one a reader refuses.
        let parents = parent.map { [$0.hash] } ?? []
        let operations: [ChangeOperation] = [.node(try NodeID.random(), .present(kind: .scene, parent: nil, orderKey: "1k", title: title))]
        let body = try ChangeRecordCodec.body(project: project, device: author.device, counter: counter, lamport: lamport, parents: parents, operations: operations)
        let signature = try author.key.signature(for: ChangeRecordCodec.signingInput(body))
        return ChangeRecord(project: project, device: author.device, counter: counter, lamport: lamport, parents: parents,
                            operations: operations, signature: signature, encoded: body + signature)
    }

    @Test func lamportTimesAndCountersPastTheirBoundAreRefusedAndTheDaemonGoesOn() throws {
        let f = try F()
        let (project, document, author, head) = try Self.synced(f)
        let next = head.counter + 1
        let huge: [(String, ChangeRecord)] = [
            ("malformedRecord", try Self.planting(project.id, author, counter: next, lamport: UInt64.max, after: head)),
            ("malformedRecord", try Self.planting(project.id, author, counter: next, lamport: 1 << 63, after: head)),
            ("malformedRecord", try Self.planting(project.id, author, counter: 1 << 63, lamport: head.lamport + 1, after: head)),
            // Within the codec's bound, but a leap that would use up every later record's times.
            ("causalityViolation", try Self.planting(project.id, author, counter: next, lamport: UInt64(Int64.max), after: head)),
        ]
        let transport = try f.transport()
        for (reason, record) in huge {
            #expect(try Self.push([record.encoded], project.id, over: transport).refused == [reason])
        }
        #expect(F.details(f.desk, .syncRecordRefused, "reason") == huge.map(\.0))
        // The desk still answers, and honest edits still travel.
        try F.edit(f.laptop, project, document, block: 0, to: "morning, later")
        #expect(try f.syncLaptop().sent == 1)
        #expect(try F.texts(f.desk, project.id, document) == ["morning, later"])
    }

    @Test func recordsWhoseDocumentsTheWritingStoreRefusesSkipTheirProjectRecordedAndTheOthersStillSync() throws {
        let f = try F()
        let kept = try F.project(f.laptop, "Notes")
        let archived = try F.project(f.laptop, "Old case")
        let keptDocument = try F.document(f.laptop, in: kept, "Day", ["morning"])
        let oldDocument = try F.document(f.laptop, in: archived, "File", ["closed"])
        try f.syncLaptop()
        let archivedID = archived.id
        func archive(_ vault: TestVault, _ flag: Bool) throws {
            try vault.unlocked.transaction { tx in try WritingStore(tx).archive(archivedID, flag) }
        }
        // Archived on the desk: the laptop's edit of it is refused there and recorded; the other
        // project's edit arrives in the same exchange.
        try archive(f.desk, true)
        try F.edit(f.laptop, archived, oldDocument, block: 0, to: "reopened")
        try F.edit(f.laptop, kept, keptDocument, block: 0, to: "morning, later")
        let pushed = try f.syncLaptop()
        #expect(pushed.projects.first { $0.project == archived.id }?.refusedByPeer == ["writingRefused"], "\(pushed)")
        #expect(try F.texts(f.desk, kept.id, keptDocument) == ["morning, later"])
        #expect(F.details(f.desk, .syncRecordRefused, "writing") == ["projectArchived"])
        // The archived flag travels too (0x0A): the laptop took the desk's archive, and takes it
        // back from the desk now, with its refused edit (pushed again).
        #expect(try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(archivedID).isArchived })
        try archive(f.desk, false)
        #expect(try f.syncLaptop().refused == 0)
        #expect(try F.texts(f.desk, archived.id, oldDocument) == ["reopened"])
        // Archived here instead (after the desk's last word on it): what the desk's records make is
        // refused here, the project is skipped with the reason, and the other project still syncs.
        try archive(f.laptop, true)
        let deskArchived = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(archived.id) }
        let deskKept = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(kept.id) }
        try F.edit(f.desk, deskArchived, oldDocument, block: 0, to: "closed, at the desk")
        try F.edit(f.desk, deskKept, keptDocument, block: 0, to: "morning, at the desk")
        let pulled = try f.syncLaptop()
        let skipped = try #require(pulled.projects.first { $0.project == archived.id })
        #expect(skipped.localOnly?.contains("projectArchived") == true && skipped.refused == ["writingRefused"], "\(pulled)")
        #expect(try F.texts(f.laptop, kept.id, keptDocument) == ["morning, at the desk"])
        #expect(F.details(f.laptop, .syncRecordRefused, "writing") == ["projectArchived"])
    }

    @Test func aTitleTheWritingStoreWouldRefuseIsRefusedAsARecordAndSyncGoesOn() throws {
        let f = try F()
        let (project, document, author, head) = try Self.synced(f)
        let transport = try f.transport()
        for title in ["Planted ", " Planted", "Cafe\u{301}"] {
            let record = try Self.planting(project.id, author, counter: head.counter + 1, lamport: head.lamport + 1, after: head, title: title)
            #expect(try Self.push([record.encoded], project.id, over: transport).refused == ["malformedRecord"], "\(title)")
        }
        #expect(F.details(f.desk, .syncRecordRefused, "reason") == ["malformedRecord", "malformedRecord", "malformedRecord"])
        try F.edit(f.laptop, project, document, block: 0, to: "morning, later")
        #expect(try f.syncLaptop().sent == 1)
        #expect(try F.texts(f.desk, project.id, document) == ["morning, later"])
    }
}
