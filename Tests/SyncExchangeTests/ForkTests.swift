import Appliance
import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A paired device that signs two records with one number (a fork, SECURITY.md §19.4): each vault
/// kept the one that reached it first, and the records built on the other only wait, because the
/// version vectors say both hold that number. The asker looks for the fork when records are left
/// waiting, refuses it and what is built on it (`equivocation`), recorded naming the device, and
/// everything not built on it syncs on. Over a real channel on loopback.
@Suite(.serialized) struct ForkTests {
    typealias F = SyncExchangeFixture

    /// The devices named by the vault's `equivocation` refusals.
    static func forkingDevices(_ vault: TestVault) -> Set<String> {
        vault.recording.events.withLock { events in
            Set(events.filter { $0.action == .syncRecordRefused && $0.details.contains { $0.name == "reason" && $0.value == "equivocation" } }
                .flatMap { $0.details.filter { $0.name == "device" }.map(\.value) })
        }
    }

    /// Signs, with the laptop's key, a second record of the number after the laptop's last one in
    /// `project`, and pushes it to the desk, which stores it: the fork's other side. Returns the
    /// laptop's author, the record both numbers follow, and the transport it was pushed over.
    static func secondNumberOnTheDesk(_ f: F, _ project: WritingProject) throws -> (forker: SyncAuthor, head: ChangeRecord, transport: ChannelSyncTransport) {
        let forker = SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey)
        let head = try f.laptop.unlocked.transaction { tx in
            try ChangeRecordCodec.parse(try VaultSync(WritingStore(tx), author: forker, devices: [:]).records(of: project.id, missingFrom: [:]).last!)
        }
        let forked = try ChangeRecord.make(project: project.id, author: forker, counter: head.counter + 1, lamport: head.lamport + 1,
                                           parents: [head.hash],
                                           operations: [.node(try NodeID.random(), .present(kind: .scene, parent: nil, orderKey: "1k", title: "Elsewhere"))])
        let transport = try f.transport()
        let pushed = try SyncPushAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pushKind,
                                                                       body: SyncPushRequest(project: project.id, records: [forked.encoded]).serialized()))
        #expect(pushed.stored == 1)
        return (forker, head, transport)
    }

    @Test func aForkIsFoundRefusedAndRecordedNamingItsDeviceAndWhatIsNotBuiltOnItSyncsOn() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        let other = try F.project(f.laptop, "Memo")
        let document = try F.document(f.laptop, in: project, "Day", ["morning"])
        let memo = try F.document(f.laptop, in: other, "Draft", ["one"])
        try f.syncLaptop()
        // The laptop's key signs a second record number 2, which only the desk gets ...
        let (forker, head, transport) = try Self.secondNumberOnTheDesk(f, project)
        // ... while the laptop's vault commits its own number 2, and the desk builds on the fork.
        try F.edit(f.laptop, project, document, block: 0, to: "morning, on the laptop")
        let deskProject = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(f.desk, deskProject, document, block: 0, to: "morning, on the desk")
        let deskOther = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(other.id) }
        try F.edit(f.desk, deskOther, memo, block: 0, to: "one, from the desk")

        let report = try f.syncLaptop()
        let entry = try #require(report.projects.first { $0.project == project.id })
        #expect(entry.refused.contains("equivocation"), "\(report)")
        #expect(F.details(f.laptop, .syncRecordRefused, "reason").contains("equivocation"))
        #expect(Self.forkingDevices(f.laptop) == [f.laptopKeys.profile.deviceID.hex])
        #expect(try F.texts(f.laptop, project.id, document) == ["morning, on the laptop"])
        // Not built on the fork: the other project's edit arrives.
        #expect(try F.texts(f.laptop, other.id, memo) == ["one, from the desk"])
        // A second record of a number the desk holds, sent to it directly, is refused as a fork too.
        let again = try ChangeRecord.make(project: project.id, author: forker, counter: head.counter + 1, lamport: head.lamport + 1,
                                          parents: [head.hash], operations: [.node(try NodeID.random(), .removed)])
        let refused = try SyncPushAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pushKind,
                                                                        body: SyncPushRequest(project: project.id, records: [again.encoded]).serialized()))
        #expect(refused.refused == ["equivocation"])
        #expect(Self.forkingDevices(f.desk) == [f.laptopKeys.profile.deviceID.hex])
    }

    /// A fork whose two records have one number and nothing built on either yet (review 17 s10,
    /// N-s10-4 (c)): the version vectors are equal, so before, the exchange sent nothing and said the
    /// project synced while the two vaults showed different text. The pull's tips (the hash held at
    /// each device's counter) show it at once: each side is sent the other's copy, refuses it as a
    /// fork naming the device and remembers it, the run reports the project not synced, and so does
    /// every later run while the fork stands.
    @Test func aForkOfEqualCountsIsSeenAtOnceByBothSidesAndNeverSaidToSync() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        let document = try F.document(f.laptop, in: project, "Day", ["morning"])
        try f.syncLaptop()
        let laptop = f.laptopKeys.profile.deviceID
        // The desk takes a number 2 of the laptop's key (a backup of the laptop restored and written
        // on, or a colleague's device restored: either way a second history) ...
        let (_, head, _) = try Self.secondNumberOnTheDesk(f, project)
        // ... while the laptop commits its own number 2: both vectors say the laptop's 2.
        try F.edit(f.laptop, project, document, block: 0, to: "morning, on the laptop")

        let report = try f.syncLaptop()
        let entry = try #require(report.projects.first { $0.project == project.id })
        #expect(entry.forked == [laptop: head.counter + 1], "\(report)")
        #expect(entry.refused.contains("equivocation") && entry.refusedByPeer.contains("equivocation"), "\(report)")
        #expect(entry.notSynced, "a fork is never said to sync: \(report)")
        #expect(Self.entries(f.laptop, .syncForkFound, device: laptop.hex).count == 1)
        #expect(Self.entries(f.desk, .syncForkFound, device: laptop.hex).count == 1, "the answerer meets the fork too")
        #expect(try F.texts(f.laptop, project.id, document) == ["morning, on the laptop"])

        // Every later run says so too, and records the fork no more.
        let again = try #require(try f.syncLaptop().projects.first { $0.project == project.id })
        #expect(again.notSynced && again.forked == [laptop: head.counter + 1], "\(again)")
        #expect(Self.entries(f.laptop, .syncForkFound, device: laptop.hex).count == 1)
        #expect(Self.entries(f.desk, .syncForkFound, device: laptop.hex).count == 1)
        let status = try SyncStatus.projects(f.laptop.unlocked).first { $0.project == project.id }
        #expect(status?.syncs == false && status?.forks.map(\.device) == [laptop], "\(String(describing: status))")
    }

    /// A tip names a record, unsigned: an answerer told another hash than it holds sends its own
    /// signed record of that number, and remembers no fork on the asker's word alone.
    @Test func aTipAloneNeverMakesTheAnswererRememberAFork() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        _ = try F.document(f.laptop, in: project, "Day", ["morning"])
        try f.syncLaptop()
        let laptop = f.laptopKeys.profile.deviceID
        let transport = try f.transport()
        let request = SyncPullRequest(project: project.id, held: [laptop: 1], tips: [laptop: [UInt8](repeating: 7, count: 32)])
        let answer = try SyncPullAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pullKind, body: request.serialized()))
        try #require(answer.records.count == 1, "\(answer)")
        let sent = try ChangeRecordCodec.parse(answer.records[0])
        #expect(sent.counter == 1 && answer.tips[laptop] == sent.hash, "\(answer)")
        #expect(Self.entries(f.desk, .syncForkFound, device: laptop.hex).isEmpty)
        // With the tip it holds, nothing is sent.
        let held = try SyncPullAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pullKind,
            body: SyncPullRequest(project: project.id, held: [laptop: 1], tips: [laptop: answer.tips[laptop]!]).serialized()))
        #expect(held.records.isEmpty)
    }

    /// The entries of `vault` of `action` that name `device`.
    static func entries(_ vault: TestVault, _ action: AuditAction, device: String) -> [[String: String]] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == action && $0.details.contains { $0.name == "device" && $0.value == device } }
                .map { Dictionary($0.details.map { ($0.name, $0.value) }) { first, _ in first } }
        }
    }

    /// A fork is remembered (SECURITY.md §19.9, `sync_forks`): the desk, which met the laptop's
    /// second history in one exchange, refuses the laptop's next record at once in the next, as
    /// `equivocation` saying the fork is known (it would otherwise only wait for a parent the desk
    /// will never take, `missingParents`), and records the fork once.
    @Test func aForkingDeviceIsRememberedAndItsNextRecordIsRefusedAtOnceInALaterExchange() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        let document = try F.document(f.laptop, in: project, "Day", ["morning"])
        try f.syncLaptop()
        let forker = SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey)
        let laptop = f.laptopKeys.profile.deviceID.hex
        func laptopRecords() throws -> [[UInt8]] {
            try f.laptop.unlocked.transaction { tx in try VaultSync(WritingStore(tx), author: forker, devices: [:]).records(of: project.id, missingFrom: [:]) }
        }
        let head = try ChangeRecordCodec.parse(try laptopRecords().last!)
        let forked = try ChangeRecord.make(project: project.id, author: forker, counter: head.counter + 1, lamport: head.lamport + 1,
                                           parents: [head.hash],
                                           operations: [.node(try NodeID.random(), .present(kind: .scene, parent: nil, orderKey: "1k", title: "Elsewhere"))])
        let transport = try f.transport()
        func push(_ records: [[UInt8]]) throws -> SyncPushAnswer {
            try SyncPushAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pushKind, body: SyncPushRequest(project: project.id, records: records).serialized()))
        }
        #expect(try push([forked.encoded]).stored == 1)
        // Exchange one: the laptop's own number 2 reaches the desk, which holds another number 2.
        try F.edit(f.laptop, project, document, block: 0, to: "morning, on the laptop")
        try f.laptop.unlocked.transaction { tx in _ = try VaultSync(WritingStore(tx), author: forker, devices: [:]).commitLocalChanges(in: project.id) }
        let own = try laptopRecords().last!
        #expect(try ChangeRecordCodec.parse(own).counter == head.counter + 1)
        #expect(try push([own]).refused == ["equivocation"])
        #expect(Self.entries(f.desk, .syncForkFound, device: laptop).count == 1)

        // Exchange two: the laptop's number 3 follows its own number 2, which the desk refused.
        try F.edit(f.laptop, project, document, block: 0, to: "morning, later on the laptop")
        let report = try f.syncLaptop()
        let entry = try #require(report.projects.first { $0.project == project.id })
        // The laptop's number 2 goes again with its number 3, so the desk meets its copy of the fork too.
        #expect(!entry.refusedByPeer.isEmpty && Set(entry.refusedByPeer) == ["equivocation"], "\(report)")
        let refusals = Self.entries(f.desk, .syncRecordRefused, device: laptop)
        #expect(refusals.last?["reason"] == "equivocation" && refusals.last?["fork"] == "known", "\(refusals)")
        #expect(Self.entries(f.desk, .syncForkFound, device: laptop).count == 1, "the fork is recorded once")
        #expect(try F.texts(f.desk, project.id, document) == ["morning"])
    }
}

