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
                         title: String = "Planted", under folder: NodeID? = nil) throws -> ChangeRecord {
        // Signed by hand, as a hostile device would: `ChangeRecord.make` never signs one a reader refuses.
        let parents = parent.map { [$0.hash] } ?? []
        let operations: [ChangeOperation] = [.node(try NodeID.random(), .present(kind: .scene, parent: folder, orderKey: "1k", title: title))]
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

    /// A record the writing store refuses to write (a document under a document: the codec and the
    /// merge take it, a document holds no document) skips its project, recorded with the store's code;
    /// the other projects sync, and so does the project once honest records come.
    @Test func recordsWhoseDocumentsTheWritingStoreRefusesSkipTheirProjectRecordedAndTheOthersStillSync() throws {
        let f = try F()
        let (project, document, author, head) = try Self.synced(f)
        let kept = try F.project(f.laptop, "Old case")
        let keptDocument = try F.document(f.laptop, in: kept, "File", ["closed"])
        try f.syncLaptop()
        let planted = try Self.planting(project.id, author, counter: head.counter + 1, lamport: head.lamport + 1, after: head, under: document)
        #expect(try Self.push([planted.encoded], project.id, over: try f.transport()).refused == ["writingRefused"])
        #expect(F.details(f.desk, .syncRecordRefused, "writing") == ["wrongNodeKind"])
        #expect(try F.texts(f.desk, project.id, document) == ["morning"])
        try F.edit(f.laptop, kept, keptDocument, block: 0, to: "reopened")
        try F.edit(f.laptop, project, document, block: 0, to: "morning, later")
        let honest = try f.syncLaptop()
        #expect(honest.sent == 2 && honest.refused == 0, "\(honest)")
        #expect(try F.texts(f.desk, kept.id, keptDocument) == ["reopened"])
        #expect(try F.texts(f.desk, project.id, document) == ["morning, later"])
    }

    /// An archived project is no such cause (review 17 s11, N-s11-2): archived on the desk, it takes
    /// the laptop's concurrent edit, and the laptop takes the archive; archived here instead, the
    /// laptop takes the desk's edit. Before, each was refused (`writingRefused`, `projectArchived`)
    /// at every exchange while the project stayed archived.
    @Test func anArchivedProjectTakesWhatTheRecordsMakeOnEitherSideAndStaysArchived() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Old case")
        let document = try F.document(f.laptop, in: project, "File", ["closed"])
        try f.syncLaptop()
        func archive(_ vault: TestVault, _ flag: Bool) throws {
            try vault.unlocked.transaction { tx in try WritingStore(tx).archive(project.id, flag) }
        }
        func archived(_ vault: TestVault) throws -> Bool {
            try vault.unlocked.transaction { tx in try WritingStore(tx).project(project.id).isArchived }
        }
        try archive(f.desk, true)
        try F.edit(f.laptop, project, document, block: 0, to: "reopened")
        let pushed = try f.syncLaptop()
        #expect(pushed.refused == 0 && pushed.sent == 1, "\(pushed)")
        #expect(try F.texts(f.desk, project.id, document) == ["reopened"])
        #expect(try archived(f.desk) && archived(f.laptop))
        #expect(F.details(f.desk, .syncRecordRefused, "reason").isEmpty)

        // Brought back on the desk, edited there while the laptop archives it again.
        try archive(f.desk, false)
        try f.syncLaptop()
        #expect(try !archived(f.laptop))
        try archive(f.laptop, true)
        let deskProject = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(f.desk, deskProject, document, block: 0, to: "closed, at the desk")
        let pulled = try f.syncLaptop()
        #expect(pulled.refused == 0 && pulled.received == 1, "\(pulled)")
        #expect(try F.texts(f.laptop, project.id, document) == ["closed, at the desk"])
        #expect(try archived(f.laptop) && archived(f.desk))
        #expect(F.details(f.laptop, .syncRecordRefused, "reason").isEmpty)
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
