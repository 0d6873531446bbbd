import CryptoVault
import Foundation
import Synchronization
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// The exchange between two real vaults over a real channel on loopback (SECURITY.md §19.9): the
/// owner's own devices hold the same projects and converge; privileged projects reach only the
/// owner's own devices; shared projects follow their grants; a hostile paired peer is refused with
/// the reason, recorded, and honest sync goes on.
@Suite(.serialized) struct SyncExchangeTests {
    typealias F = SyncExchangeFixture

    @Test func aProjectMadeOnOneOwnDeviceIsHeldByTheOtherAndEditsOfBothConverge() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Case notes")
        let document = try F.document(f.laptop, in: project, "Visit", ["intake", "observations", "plan"])
        let first = try f.syncLaptop()
        #expect(first.sent == 1 && first.received == 0, "\(first)")
        #expect(try F.hasProject(f.desk, project.id))
        #expect(try F.texts(f.desk, project.id, document) == ["intake", "observations", "plan"])
        #expect(F.details(f.desk, .syncProjectAdded, "access") == ["mine"])
        // Both edit different paragraphs while apart; one sync brings each the other's.
        let deskProject = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(f.desk, deskProject, document, block: 0, to: "intake, from the desk")
        try F.edit(f.laptop, project, document, block: 2, to: "plan, from the laptop")
        let second = try f.syncLaptop()
        #expect(second.received == 1 && second.sent == 1, "\(second)")
        let expected = ["intake, from the desk", "observations", "plan, from the laptop"]
        #expect(try F.texts(f.laptop, project.id, document) == expected)
        #expect(try F.texts(f.desk, project.id, document) == expected)
        // Nothing left: a third sync moves no record, and the status says when and how much.
        let third = try f.syncLaptop()
        #expect(third.sent == 0 && third.received == 0)
        let status = try #require(try SyncStatus.read(f.laptop.unlocked).first)
        #expect(status.lastSyncAt != nil && status.lastError == nil && status.recordsSent == 2 && status.recordsReceived == 1 && status.pending == 0)
        // Every record that left passed the funnel, for this device.
        #expect(F.details(f.laptop, .egressDecision, "destination").contains("device:\(f.deskKeys.profile.deviceID.hex)"))
    }

    @Test func aProjectMadeOnTheAnsweringDeviceReachesTheAskingOne() throws {
        let f = try F()
        let project = try F.project(f.desk, "Memo")
        let document = try F.document(f.desk, in: project, "Draft", ["one", "two"])
        let report = try f.syncLaptop()
        #expect(report.received == 1)
        #expect(try F.texts(f.laptop, project.id, document) == ["one", "two"])
    }

    @Test func aPrivilegedProjectReachesTheOwnersOwnDeviceAndStaysPrivilegedThere() throws {
        let f = try F()
        let project = try F.project(f.desk, "Patient A", register: .healthcare)
        #expect(project.isPrivileged)
        let document = try F.document(f.desk, in: project, "Visit", ["history"])
        try f.syncLaptop()
        let held = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        #expect(held.isPrivileged)
        #expect(try F.texts(f.laptop, project.id, document) == ["history"])
    }

    @Test func aPrivilegedProjectNeverReachesSomeoneElsesDeviceWhateverItAsks() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Patient A", register: .healthcare)
        _ = try F.document(f.desk, in: project, "Visit", ["a finding only the desk holds"])
        // Even shared for sync by hand (the share grant itself refuses a privileged compartment).
        try SyncControl.shared(project.compartment, with: f.laptopKeys.profile.deviceID, role: .editor, in: f.desk.unlocked)
        let report = try f.syncLaptop()
        #expect(report.projects.isEmpty)
        #expect(try !F.hasProject(f.laptop, project.id))
        let transport = try f.transport()
        #expect(throws: SyncExchangeError(.privilegedRefused, "")) {
            try transport.requestAsAnyPeer(SyncWire.pullKind, body: SyncPullRequest(project: project.id, held: [:]).serialized())
        }
        #expect(F.details(f.desk, .syncExchangeRefused, "reason") == ["privilegedRefused"])
        #expect(!F.details(f.desk, .egressDecision, "destination").contains("device:\(f.laptopKeys.profile.deviceID.hex)"))
    }

    @Test func sharedProjectsFollowTheirGrantsAViewersChangesAreRefusedAndARevokeStopsSync() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Brief")
        let document = try F.document(f.desk, in: project, "Draft", ["first", "second"])
        // Not shared: not offered, and asked for directly, refused.
        #expect(try f.syncLaptop().projects.isEmpty)
        #expect(throws: SyncExchangeError(.notShared, "")) {
            try f.transport().requestAsAnyPeer(SyncWire.pullKind, body: SyncPullRequest(project: project.id, held: [:]).serialized())
        }
        // As a viewer: the laptop gets it; its own edits stay with it and are refused if pushed.
        try F.share(project, of: f.desk, with: f.laptop, role: .viewer)
        #expect(try f.syncLaptop().received == 1)
        #expect(try F.texts(f.laptop, project.id, document) == ["first", "second"])
        let laptopProject = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        // Its store refuses its edits (ViewOnlyProjectTests); a laptop that lifts the mark itself (a
        // hostile or modified one) edits, and the owner refuses what it pushes.
        #expect(throws: WritingError(.viewOnly, "")) { try F.edit(f.laptop, laptopProject, document, block: 1, to: "refused") }
        try f.laptop.unlocked.transaction { tx in try WritingStore(tx).setSyncedViewOnly(project.id, false, from: "test") }
        try F.edit(f.laptop, laptopProject, document, block: 1, to: "second, by the viewer")
        let asViewer = try f.syncLaptop()
        #expect(asViewer.sent == 0)
        let pending = try f.laptop.unlocked.transaction { tx in
            try VaultSync(WritingStore(tx), author: SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey),
                          devices: [f.deskKeys.profile.deviceID: f.deskKeys.profile.signingPublicKey])
                .records(of: project.id, missingFrom: [f.deskKeys.profile.deviceID: 1])
        }
        #expect(throws: SyncExchangeError(.viewerCannotWrite, "")) {
            try f.transport().requestAsAnyPeer(SyncWire.pushKind, body: SyncPushRequest(project: project.id, records: pending).serialized())
        }
        #expect(try F.texts(f.desk, project.id, document) == ["first", "second"])
        #expect(F.details(f.desk, .syncExchangeRefused, "reason").contains("viewerCannotWrite"))
        try SyncControl.shared(project.compartment, with: f.laptopKeys.profile.deviceID, role: .editor, in: f.desk.unlocked)
        // As an editor: its changes merge. The edit refused as a viewer was set aside (c728c06) and is
        // put back now: the run sends it, and the snapshot the set-aside took (history); the branch
        // that kept its words meanwhile stays the laptop's, discarded, never sent (closing note s13:
        // the desk held a discarded branch of words it has).
        #expect(try f.syncLaptop().sent == 2)
        #expect(try F.texts(f.desk, project.id, document) == ["first", "second, by the viewer"])
        #expect(try F.store(f.desk, project) { try $0.branches(of: document, in: project.id) }.isEmpty)
        #expect(try F.store(f.laptop, project) { try $0.branches(of: document, in: project.id) }.map(\.state) == [.discarded])
        // Revoked: the next request is refused, and the desk's log says so.
        try SyncControl.revoked(project.compartment, from: f.laptopKeys.profile.deviceID, in: f.desk.unlocked)
        #expect(try f.syncLaptop().projects.isEmpty)
        #expect(throws: SyncExchangeError(.notShared, "")) {
            try f.transport().requestAsAnyPeer(SyncWire.pullKind, body: SyncPullRequest(project: project.id, held: [:]).serialized())
        }
        #expect(f.desk.recording.actions.contains("sync.share-revoke"))
    }

    /// Review 17 s8, T5 gap: the sharpest form of "a change for a compartment it has no key to":
    /// someone else's device PUSHES signed records into the owner's privileged project (even one
    /// shared with it for sync by hand). Refused whole before any record is read, with the reason,
    /// recorded; the chart is unchanged and an ordinary shared project still syncs both ways.
    @Test func someoneElsesDeviceCannotWriteIntoAPrivilegedProjectWhateverItPushes() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let chart = try F.project(f.desk, "Patient A", register: .healthcare)
        let visit = try F.document(f.desk, in: chart, "Visit", ["what the clinician wrote"])
        try SyncControl.shared(chart.compartment, with: f.laptopKeys.profile.deviceID, role: .editor, in: f.desk.unlocked)
        let memo = try F.project(f.desk, "Shared memo")
        let page = try F.document(f.desk, in: memo, "Page", ["owner's words"])
        try F.share(memo, of: f.desk, with: f.laptop, role: .editor)
        try f.syncLaptop()
        let author = SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey)
        let node = try NodeID.random()
        let intruding = try [ChangeRecord.make(project: chart.id, author: author, counter: 1, lamport: 1, parents: [],
                                               operations: [.node(node, .removed)]).encoded]
        let transport = try f.transport()
        #expect(throws: SyncExchangeError(.privilegedRefused, "")) {
            try transport.requestAsAnyPeer(SyncWire.pushKind, body: SyncPushRequest(project: chart.id, records: intruding).serialized())
        }
        #expect(F.details(f.desk, .syncExchangeRefused, "reason").contains("privilegedRefused"))
        #expect(!f.desk.recording.actions.contains("sync.record-receive"), "a record of the chart was read")
        #expect(try F.texts(f.desk, chart.id, visit) == ["what the clinician wrote"])
        // Honest sync of the ordinary shared project goes on, both ways.
        let held = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(memo.id) }
        try F.edit(f.laptop, held, page, block: 0, to: "owner's words, and the colleague's")
        #expect(try f.syncLaptop().sent == 1)
        #expect(try F.texts(f.desk, memo.id, page) == ["owner's words, and the colleague's"])
    }

    @Test func aHostilePairedPeerIsRefusedWithTheReasonAndRecordedWhileHonestSyncGoesOn() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        let document = try F.document(f.laptop, in: project, "Day", ["morning", "evening"])
        try f.syncLaptop()
        let laptopProject = project
        try F.edit(f.laptop, laptopProject, document, block: 0, to: "morning, edited")
        let author = SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey)
        let honest = try f.laptop.unlocked.transaction { tx -> ChangeRecord in
            try #require(try VaultSync(WritingStore(tx), author: author, devices: [:]).commitLocalChanges(in: project.id))
        }
        var forged = honest.encoded
        forged[forged.count - 1] ^= 1
        let first = try f.laptop.unlocked.transaction { tx in
            try VaultSync(WritingStore(tx), author: author, devices: [:]).records(of: project.id, missingFrom: [:])
        }[0]
        // Lamport time not after its parent's: a causality cycle or rewritten history.
        let backwards = try ChangeRecord.make(project: project.id, author: author, counter: 3, lamport: 1, parents: [honest.hash],
                                              operations: [.node(try NodeID.random(), .removed)])
        let transport = try f.transport()
        func push(_ records: [[UInt8]], to id: ProjectID = project.id) throws -> SyncPushAnswer {
            try SyncPushAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pushKind, body: SyncPushRequest(project: id, records: records).serialized()))
        }
        #expect(try push([forged]).refused == ["badSignature"])
        #expect(try push([first]).refused == ["replayedRecord"])
        // A project this vault lacks: the push refused whole, before any record is read (review 17, F4).
        #expect(throws: SyncExchangeError(.notShared, "")) { try push([honest.encoded], to: try ProjectID.random()) }
        #expect(try push([Array(honest.encoded.dropLast(5))]).refused == ["malformedRecord"])
        // A record over the wire's bound, and bytes that are no message: refused before any record is read.
        var huge = [SyncWire.version] + project.id.bytes
        SyncWireReader.append(1, size: 4, to: &huge)
        SyncWireReader.append(UInt64(SyncWire.maximumRecordLength + 1), size: 4, to: &huge)
        #expect(throws: SyncExchangeError(.malformedMessage, "")) { try transport.requestAsAnyPeer(SyncWire.pushKind, body: huge) }
        #expect(throws: SyncExchangeError(.malformedMessage, "")) { try transport.requestAsAnyPeer(SyncWire.pullKind, body: [1, 2, 3]) }
        #expect(try push([honest.encoded, backwards.encoded]).refused == ["causalityViolation"])
        let reasons = Set(F.details(f.desk, .syncRecordRefused, "reason"))
        #expect(reasons.isSuperset(of: ["badSignature", "replayedRecord", "malformedRecord", "causalityViolation"]))
        #expect(F.details(f.desk, .syncExchangeRefused, "reason").filter { $0 == "malformedMessage" }.count == 2)
        #expect(F.details(f.desk, .syncExchangeRefused, "records") == ["1"], "the unknown project's push: one entry, its count")
        // The honest record went in with the hostile ones; honest sync goes on.
        #expect(try F.texts(f.desk, project.id, document) == ["morning, edited", "evening"])
        try F.edit(f.laptop, laptopProject, document, block: 1, to: "evening, later")
        #expect(try f.syncLaptop().sent == 1)
        #expect(try F.texts(f.desk, project.id, document) == ["morning, edited", "evening, later"])
    }

    @Test func pausingKeepsEveryRecordAndResumingSyncsWhatWasEditedMeanwhile() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Notes")
        let document = try F.document(f.laptop, in: project, "Day", ["one"])
        try f.syncLaptop()
        #expect(try SyncControl.setPaused(true, device: f.deskKeys.profile.deviceID, in: f.laptop.unlocked))
        try F.edit(f.laptop, project, document, block: 0, to: "one, while paused")
        #expect(throws: SyncExchangeError(.paused, "")) { try f.syncLaptop() }
        #expect(try F.texts(f.laptop, project.id, document) == ["one, while paused"])
        // Paused on the other side: its requests are refused there.
        try SyncControl.setPaused(false, device: f.deskKeys.profile.deviceID, in: f.laptop.unlocked)
        try SyncControl.setPaused(true, device: f.laptopKeys.profile.deviceID, in: f.desk.unlocked)
        #expect(throws: SyncExchangeError(.paused, "")) { try f.syncLaptop() }
        try SyncControl.setPaused(false, device: f.laptopKeys.profile.deviceID, in: f.desk.unlocked)
        #expect(try f.syncLaptop().sent == 1)
        #expect(try F.texts(f.desk, project.id, document) == ["one, while paused"])
        #expect(f.laptop.recording.actions.filter { $0.hasPrefix("sync.pause") || $0.hasPrefix("sync.resume") } == ["sync.pause", "sync.resume"])
    }

    @Test func theCoordinatorCoalescesChangesIntoFewNotifications() async throws {
        let coordinator = SyncCoordinator(interval: 0.2)
        let heard = Mutex<[SyncNotification]>([])
        _ = coordinator.subscribe { notification in heard.withLock { $0.append(notification) } }
        let projects = try (0..<3).map { _ in try ProjectID.random() }
        for index in 0..<300 { coordinator.changed(projects[index % 3], documents: 1) }
        try await Task.sleep(nanoseconds: 700_000_000)
        let notifications = heard.withLock { $0 }
        #expect((1...2).contains(notifications.count), "\(notifications.count)")
        #expect(notifications.reduce(Set()) { $0.union($1.projects) } == Set(projects))
        #expect(notifications.reduce(0) { $0 + $1.documentsWritten } == 300)
    }

    /// 8,000 paragraphs (1.6 MB) are more operations than one record holds (4,096; a paragraph is two,
    /// its value and its characters, kept in one record): the first commit is cut into four records
    /// that each parse, stored in several sealed parts, and they travel in one batch.
    @Test func aDocumentTooLargeForOneRecordIsCommittedAsSeveralAndTravels() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Long")
        let paragraphs = (0..<8000).map { index in (0..<25).map { "w\(($0 * 7919 + index) % 5000)" }.joined(separator: " ") }
        let document = try F.document(f.laptop, in: project, "All of it", paragraphs)
        #expect(try f.syncLaptop().sent == 4)
        #expect(try F.texts(f.desk, project.id, document) == paragraphs)
        #expect(try f.syncLaptop().sent == 0)
    }
}
