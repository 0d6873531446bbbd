import Appliance
import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A paired device that signs two records with one number (a fork, SECURITY.md §19.4): before, each
/// vault kept the one that reached it first, and the records built on the other only waited. Now the
/// exchange meets the fork (tips, or records left waiting), both sides weigh the two copies by the
/// fork rule and keep the same one (the lower-ranked), the other and what is built on it leave, the
/// words only it showed are kept as a branch, and the device is named and remembered. Over a real
/// channel on loopback.
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
    /// laptop's author, the record both numbers follow, the transport it was pushed over, and it.
    static func secondNumberOnTheDesk(_ f: F, _ project: WritingProject) throws
        -> (forker: SyncAuthor, head: ChangeRecord, transport: ChannelSyncTransport, forked: ChangeRecord) {
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
        return (forker, head, transport, forked)
    }

    /// The laptop commits what it shows of `project` now and returns that record (its own number).
    static func laptopCommits(_ f: F, _ project: WritingProject, _ forker: SyncAuthor) throws -> ChangeRecord {
        try f.laptop.unlocked.transaction { tx in
            let sync = VaultSync(WritingStore(tx), author: forker, devices: [:])
            _ = try sync.commitLocalChanges(in: project.id)
            return try ChangeRecordCodec.parse(try sync.records(of: project.id, missingFrom: [:]).last!)
        }
    }

    /// The texts of every branch of `document` in `vault`: where a drop keeps the words it took out.
    static func branchTexts(_ vault: TestVault, _ projectID: ProjectID, _ document: NodeID) throws -> [String] {
        let project = try vault.unlocked.transaction { tx in try WritingStore(tx).project(projectID) }
        return try F.store(vault, project) { store in
            try store.branches(of: document, in: projectID).flatMap { try store.branchContent($0.id, of: document, in: projectID).blocks.map(\.text) }
        }
    }

    /// Each side of a fork, one with something built on it by another device (the desk's edit on its
    /// copy): after one run both show that history, whatever the two ranks, the laptop keeps its
    /// words as a branch, and what is not built on the fork (another project) syncs on.
    @Test func aForkIsMetByBothSidesWhichKeepTheBackedHistoryAndWhatIsNotBuiltOnItSyncsOn() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        let other = try F.project(f.laptop, "Memo")
        let document = try F.document(f.laptop, in: project, "Day", ["morning"])
        let memo = try F.document(f.laptop, in: other, "Draft", ["one"])
        try f.syncLaptop()
        // The laptop's key signs a second record number 2, which only the desk gets ...
        let (forker, head, transport, forked) = try Self.secondNumberOnTheDesk(f, project)
        // ... while the laptop's vault commits its own number 2, and the desk builds on the fork.
        try F.edit(f.laptop, project, document, block: 0, to: "morning, on the laptop")
        let own = try Self.laptopCommits(f, project, forker)
        #expect(own.counter == forked.counter)
        // The desk builds on its copy: backed, it stays whatever the two ranks (SECURITY.md §19.4).
        let ownStays = false
        let deskProject = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(f.desk, deskProject, document, block: 0, to: "morning, on the desk")
        let deskOther = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(other.id) }
        try F.edit(f.desk, deskOther, memo, block: 0, to: "one, from the desk")

        let report = try f.syncLaptop()
        let entry = try #require(report.projects.first { $0.project == project.id })
        #expect(entry.refused.contains("equivocation"), "\(report)")
        #expect(F.details(f.laptop, .syncRecordRefused, "reason").contains("equivocation"))
        #expect(Self.forkingDevices(f.laptop) == [f.laptopKeys.profile.deviceID.hex])
        // One history on both sides, whichever reached which first: the backed one.
        let kept = ownStays ? "morning, on the laptop" : "morning, on the desk"
        #expect(try F.texts(f.laptop, project.id, document) == [kept], "own stays: \(ownStays)")
        #expect(try F.texts(f.desk, project.id, document) == [kept], "own stays: \(ownStays)")
        // The words the other history showed are kept where they were shown, as a branch.
        let (showed, lost) = ownStays ? (f.desk, "morning, on the desk") : (f.laptop, "morning, on the laptop")
        #expect(try Self.branchTexts(showed, project.id, document).contains(lost), "own stays: \(ownStays)")
        // Not built on the fork: the other project's edit arrives.
        #expect(try F.texts(f.laptop, other.id, memo) == ["one, from the desk"])
        // A second record of a number the desk holds, that nothing is built on, is refused as a fork.
        let again = try ChangeRecord.make(project: project.id, author: forker, counter: head.counter + 1, lamport: head.lamport + 2,
                                          parents: [head.hash], operations: [.node(try NodeID.random(), .removed)])
        let refused = try SyncPushAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pushKind,
                                                                        body: SyncPushRequest(project: project.id, records: [again.encoded]).serialized()))
        #expect(refused.refused == ["equivocation"] && refused.stored == 0)
        #expect(Self.forkingDevices(f.desk) == [f.laptopKeys.profile.deviceID.hex])
    }

    /// A fork whose two records have one number and nothing built on either yet (review 17 s10,
    /// N-s10-4 (c)): the version vectors are equal, so before, the exchange sent nothing and said the
    /// project synced while the two vaults showed different text. The pull's tips (the hash held at
    /// each device's counter) show it at once: each side is sent the other's copy, both keep the
    /// lower-ranked one (SECURITY.md §19.4's fork rule), the run reports the fork (not synced, exit
    /// 75 for `sync now`), and the next run, the two sides holding one history, syncs.
    @Test func aForkOfEqualCountsIsSeenAtOnceAndBothSidesKeepOneHistory() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        let document = try F.document(f.laptop, in: project, "Day", ["morning"])
        try f.syncLaptop()
        let laptop = f.laptopKeys.profile.deviceID
        // The desk takes a number 2 of the laptop's key (a backup of the laptop restored and written
        // on, or a colleague's device restored: either way a second history) ...
        let (forker, head, _, forked) = try Self.secondNumberOnTheDesk(f, project)
        // ... while the laptop commits its own number 2: both vectors say the laptop's 2.
        try F.edit(f.laptop, project, document, block: 0, to: "morning, on the laptop")
        let own = try Self.laptopCommits(f, project, forker)
        let ownStays = SyncReplica.ranks(forked, above: own)

        let report = try f.syncLaptop()
        let entry = try #require(report.projects.first { $0.project == project.id })
        #expect(entry.forked == [laptop: head.counter + 1], "\(report)")
        #expect(entry.refused.contains("equivocation"), "\(report)")
        #expect(entry.notSynced, "the run that meets a fork says so: \(report)")
        #expect(Self.entries(f.laptop, .syncForkFound, device: laptop.hex).count == 1)
        // The desk meets the fork whichever copy leaves: when its own stays, the laptop sends the copy
        // that left there (before, it did not, and the desk never named the fork: fork13's desk).
        #expect(Self.entries(f.desk, .syncForkFound, device: laptop.hex).count == 1, "own stays: \(ownStays)")
        let kept = ownStays ? ["morning, on the laptop"] : ["morning"]
        #expect(try F.texts(f.laptop, project.id, document) == kept, "own stays: \(ownStays)")
        #expect(try F.texts(f.desk, project.id, document) == kept, "own stays: \(ownStays)")

        // The next run finds one history on both sides: it syncs, and records the fork no more.
        let again = try #require(try f.syncLaptop().projects.first { $0.project == project.id })
        #expect(!again.notSynced && again.forked.isEmpty, "\(again)")
        #expect(Self.entries(f.laptop, .syncForkFound, device: laptop.hex).count == 1)
        let status = try SyncStatus.projects(f.laptop.unlocked).first { $0.project == project.id }
        #expect(status?.syncs == true && status?.forks.map(\.device) == [laptop], "\(String(describing: status))")
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

    /// The vault that meets a fork only as the answerer of pushes remembers the device whichever copy
    /// ranks lower there (fork13's desk, which named the fork in one run of four): the lower-ranked copy
    /// held first, the other refused as it comes; or the higher-ranked held first, and it leaves when
    /// the other comes (the held copy dropped by the walk, no incoming record refused). Both orders,
    /// chosen by the copies' ranks, not left to chance.
    @Test(arguments: [true, false])
    func theAnsweringVaultRemembersAForkWhicheverCopyRanksLower(lowerFirst: Bool) throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        let document = try F.document(f.laptop, in: project, "Day", ["morning"])
        try f.syncLaptop()
        let forker = SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey)
        let head = try f.laptop.unlocked.transaction { tx in
            try ChangeRecordCodec.parse(try VaultSync(WritingStore(tx), author: forker, devices: [:]).records(of: project.id, missingFrom: [:]).last!)
        }
        let copies = try ["copy one", "copy two"].map { title in
            try ChangeRecord.make(project: project.id, author: forker, counter: head.counter + 1, lamport: head.lamport + 1, parents: [head.hash],
                                  operations: [.node(try NodeID.random(), .present(kind: .scene, parent: nil, orderKey: "1k", title: title))])
        }.sorted { SyncReplica.ranks($1, above: $0) }
        let (first, second) = lowerFirst ? (copies[0], copies[1]) : (copies[1], copies[0])
        let transport = try f.transport()
        func push(_ record: ChangeRecord) throws -> SyncPushAnswer {
            try SyncPushAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pushKind,
                                                                       body: SyncPushRequest(project: project.id, records: [record.encoded]).serialized()))
        }
        #expect(try push(first).stored == 1)
        #expect(Self.entries(f.desk, .syncForkFound, device: forker.device.hex).isEmpty)
        let answer = try push(second)
        // The lower-ranked copy stays: the second is refused, or taken while the first leaves (refused too, as it goes).
        #expect(answer.stored == (lowerFirst ? 0 : 1) && answer.refused == ["equivocation"], "\(answer)")
        #expect(Self.entries(f.desk, .syncRecordDropped, device: forker.device.hex).count == (lowerFirst ? 0 : 1))
        #expect(Self.entries(f.desk, .syncForkFound, device: forker.device.hex).count == 1, "lower first: \(lowerFirst)")
        let status = try SyncStatus.projects(f.desk.unlocked).first { $0.project == project.id }
        #expect(status?.forks.map(\.device) == [forker.device], "\(String(describing: status))")
        #expect(try F.texts(f.desk, project.id, document) == ["morning"])
    }

    /// The entries of `vault` of `action` that name `device`.
    static func entries(_ vault: TestVault, _ action: AuditAction, device: String) -> [[String: String]] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == action && $0.details.contains { $0.name == "device" && $0.value == device } }
                .map { Dictionary($0.details.map { ($0.name, $0.value) }) { first, _ in first } }
        }
    }

    /// A fork is remembered (SECURITY.md §19.9, `sync_forks`) but no longer refuses the device's
    /// later records at once (which kept the kept history from a vault holding the other): the
    /// laptop's next record, built on its own number 2, is weighed by the fork rule in a later
    /// exchange, and both sides end with one history, the words of the other in a branch.
    @Test func aForkingDevicesLaterRecordsAreWeighedByTheForkRuleAndBothSidesEndWithOneHistory() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        let document = try F.document(f.laptop, in: project, "Day", ["morning"])
        try f.syncLaptop()
        let (forker, _, transport, forked) = try Self.secondNumberOnTheDesk(f, project)
        let laptop = f.laptopKeys.profile.deviceID.hex
        func push(_ records: [[UInt8]]) throws -> SyncPushAnswer {
            try SyncPushAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pushKind, body: SyncPushRequest(project: project.id, records: records).serialized()))
        }
        // Exchange one: the laptop's own number 2 reaches the desk, which holds another number 2.
        try F.edit(f.laptop, project, document, block: 0, to: "morning, on the laptop")
        let own = try Self.laptopCommits(f, project, forker)
        let ownStays = SyncReplica.ranks(forked, above: own)
        let pushed = try push([own.encoded])
        // Refused (it ranks above the desk's), or taken while the desk's copy leaves: a fork either way.
        #expect(pushed.refused == ["equivocation"] && pushed.stored == (ownStays ? 1 : 0), "own stays: \(ownStays)")
        #expect(Self.entries(f.desk, .syncForkFound, device: laptop).count == 1)

        // Exchange two: the laptop's number 3 follows its own number 2.
        try F.edit(f.laptop, project, document, block: 0, to: "morning, later on the laptop")
        _ = try f.syncLaptop()
        let refusals = Self.entries(f.desk, .syncRecordRefused, device: laptop)
        #expect(!refusals.contains { $0["fork"] == "known" }, "\(refusals)")
        #expect(Self.entries(f.desk, .syncForkFound, device: laptop).count == 1, "the fork is recorded once")
        let shown = try F.texts(f.laptop, project.id, document)
        #expect(try F.texts(f.desk, project.id, document) == shown, "own stays: \(ownStays)")
        #expect(shown == [ownStays ? "morning, later on the laptop" : "morning"], "own stays: \(ownStays)")
        // The laptop's words are shown, or kept in a branch (sent to the desk too, as any made branch).
        if !ownStays {
            #expect(try Self.branchTexts(f.laptop, project.id, document).contains("morning, later on the laptop"))
        }
    }
}
