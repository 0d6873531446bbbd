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

    @Test func aForkIsFoundRefusedAndRecordedNamingItsDeviceAndWhatIsNotBuiltOnItSyncsOn() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        let other = try F.project(f.laptop, "Memo")
        let document = try F.document(f.laptop, in: project, "Day", ["morning"])
        let memo = try F.document(f.laptop, in: other, "Draft", ["one"])
        try f.syncLaptop()
        let forker = SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey)
        let head = try f.laptop.unlocked.transaction { tx in
            try ChangeRecordCodec.parse(try VaultSync(WritingStore(tx), author: forker, devices: [:]).records(of: project.id, missingFrom: [:]).last!)
        }
        // The laptop's key signs a second record number 2, which only the desk gets ...
        let forked = try ChangeRecord.make(project: project.id, author: forker, counter: head.counter + 1, lamport: head.lamport + 1,
                                           parents: [head.hash],
                                           operations: [.node(try NodeID.random(), .present(kind: .scene, parent: nil, orderKey: "1k", title: "Elsewhere"))])
        let transport = try f.transport()
        let pushed = try SyncPushAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pushKind,
                                                                       body: SyncPushRequest(project: project.id, records: [forked.encoded]).serialized()))
        #expect(pushed.stored == 1)
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
        #expect(entry.refusedByPeer == ["equivocation"], "\(report)")
        let refusals = Self.entries(f.desk, .syncRecordRefused, device: laptop)
        #expect(refusals.last?["reason"] == "equivocation" && refusals.last?["fork"] == "known", "\(refusals)")
        #expect(Self.entries(f.desk, .syncForkFound, device: laptop).count == 1, "the fork is recorded once")
        #expect(try F.texts(f.desk, project.id, document) == ["morning"])
    }
}

