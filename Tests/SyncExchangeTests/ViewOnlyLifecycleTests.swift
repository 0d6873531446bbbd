import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A project's view-only mark over its life (attack review of issue 17, finding 2; SECURITY.md
/// §19.9, §19.10): `repair --from` an own device keeps it; a revoked share stops sync (the owner's
/// log says so, and the viewer's request for it is refused and recorded) and leaves the mark; a
/// later share as editor lifts it.
@Suite(.serialized) struct ViewOnlyLifecycleTests {
    typealias F = SyncExchangeFixture
    typealias Colleague = ProjectOwnershipTests.Colleague

    static func held(_ vault: TestVault, _ id: ProjectID) throws -> WritingProject {
        try vault.unlocked.transaction { tx in try WritingStore(tx).project(id) }
    }

    @Test func repairFromAnOwnDeviceKeepsAProjectViewOnly() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        let draft = try F.document(colleague.vault, in: memo, "Draft", ["the colleague's words"])
        try F.share(memo, of: colleague.vault, with: f.desk, role: .viewer)
        try colleague.answer(f.desk, f.deskKeys)
        try f.syncLaptop()
        #expect(try Self.held(f.laptop, memo.id).isViewOnly)

        let report = try StoreRepair(vault: f.laptop.unlocked, transport: try f.transport()).run()
        #expect(report.projects.map(\.project) == [memo.id], "\(report)")
        let repaired = try Self.held(f.laptop, memo.id)
        #expect(repaired.isViewOnly)
        #expect(try F.texts(f.laptop, memo.id, draft) == ["the colleague's words"])
        #expect(throws: WritingError(.viewOnly, "")) { try F.edit(f.laptop, repaired, draft, block: 0, to: "the laptop's") }
        #expect(F.details(f.laptop, .writingProjectViewOnly, "view-only") == ["yes", "yes"], "set at the sync, and again by the repair")
    }

    /// Attack review s6, P2: an origin a repair takes from the own device's offer (this vault had
    /// lost its row) is recorded like any origin learned, so a later mend of a damaged origin row
    /// puts it back from the audit log and the colleague's project stays theirs.
    @Test func anOriginARepairTakesIsRecordedSoALaterMendPutsItBack() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        _ = try F.document(colleague.vault, in: memo, "Draft", ["the colleague's words"])
        try F.share(memo, of: colleague.vault, with: f.desk, role: .viewer)
        try colleague.answer(f.desk, f.deskKeys)
        try f.syncLaptop()
        try f.laptop.tamper("DELETE FROM sync_origins")
        // What the log says from here on is all a vault from before offers said whose a project
        // is would have: its entry making the project said `mine`.
        let before = f.laptop.recording.events.withLock { $0.count }

        _ = try StoreRepair(vault: f.laptop.unlocked, transport: try f.transport()).run()
        let origin = colleague.keys.profile.deviceID
        #expect(F.details(f.laptop, .syncProjectOriginLearned, "origin").last == origin.hex)

        try f.laptop.tamper("PRAGMA ignore_check_constraints = ON; UPDATE sync_origins SET access = 'owner'")
        let history = SyncOriginHistory(events: f.laptop.recording.events.withLock { Array($0.dropFirst(before)) })
        let mend = try f.laptop.unlocked.transaction { tx in try SyncExchangeHealth.mend(in: tx, origins: history) }
        #expect(mend.originsRestored == [memo.id], "\(mend)")
        let kept = try f.laptop.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).origin(of: memo.id) }
        #expect(kept?.device == origin && kept?.access == .viewer)
        #expect(try Self.held(f.laptop, memo.id).isViewOnly)
    }

    @Test func aRevokedShareStopsSyncKeepsTheMarkAndASharAsEditorLiftsIt() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let brief = try F.project(f.desk, "Brief")
        let draft = try F.document(f.desk, in: brief, "Draft", ["first"])
        try F.share(brief, of: f.desk, with: f.laptop, role: .viewer)
        try f.syncLaptop()
        #expect(try Self.held(f.laptop, brief.id).isViewOnly)

        try SyncControl.revoked(brief.compartment, from: f.laptopKeys.profile.deviceID, in: f.desk.unlocked)
        #expect(F.details(f.desk, .syncShareRevoke, "peer") == [f.laptopKeys.profile.deviceID.hex])
        try F.edit(f.desk, brief, draft, block: 0, to: "first, after the revoke")
        let stopped = try f.syncLaptop()
        #expect(stopped.received == 0 && stopped.projects.allSatisfy { $0.project != brief.id }, "\(stopped)")
        #expect(try F.texts(f.laptop, brief.id, draft) == ["first"])
        #expect(try Self.held(f.laptop, brief.id).isViewOnly, "nothing the owner no longer sends becomes writable")
        // The viewer's log says why it stopped: the project left, not shared any more.
        let skipped = f.laptop.recording.events.withLock { $0.filter { $0.action == .syncProjectSkipped } }
        #expect(skipped.map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }) }
                == [["peer": f.deskKeys.profile.deviceID.hex, "project": brief.id.hex, "reason": "notShared"]])

        try F.share(brief, of: f.desk, with: f.laptop, role: .editor)
        try f.syncLaptop()
        let lifted = try Self.held(f.laptop, brief.id)
        #expect(!lifted.isViewOnly)
        #expect(try F.texts(f.laptop, brief.id, draft) == ["first, after the revoke"])
        try F.edit(f.laptop, lifted, draft, block: 0, to: "first, by the editor")
        #expect(try f.syncLaptop().sent == 1)
        #expect(try F.texts(f.desk, brief.id, draft) == ["first, by the editor"])
    }

    /// Attack review s7, A7: the viewer records that a project stopped syncing once, when it stops,
    /// not at every exchange after (the log would grow without bound and bury its other entries);
    /// shared again and revoked again, it is recorded again. `sync status` keeps the reason meanwhile.
    @Test func aProjectNoLongerSharedIsRecordedOnceEachTimeItStops() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let brief = try F.project(f.desk, "Brief")
        _ = try F.document(f.desk, in: brief, "Draft", ["first"])
        try F.share(brief, of: f.desk, with: f.laptop, role: .viewer)
        try f.syncLaptop()
        let laptop = f.laptopKeys.profile.deviceID
        let skipped = { f.laptop.recording.events.withLock { $0.filter { $0.action == .syncProjectSkipped }.count } }

        try SyncControl.revoked(brief.compartment, from: laptop, in: f.desk.unlocked)
        for _ in 1...3 { try f.syncLaptop() }
        #expect(skipped() == 1, "three exchanges after one revoke: one entry")
        let kept = try f.laptop.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).skips(of: brief.id) }
        #expect(kept.map(\.reason).allSatisfy { $0.hasPrefix("notShared:") } && kept.count == 1, "\(kept)")

        try F.share(brief, of: f.desk, with: f.laptop, role: .editor)
        #expect(try f.syncLaptop().projects.contains { $0.project == brief.id && $0.skipped == nil })
        #expect(skipped() == 1, "syncing again records no skip")
        try SyncControl.revoked(brief.compartment, from: laptop, in: f.desk.unlocked)
        for _ in 1...2 { try f.syncLaptop() }
        #expect(skipped() == 2, "a second revoke: a second entry")
    }
}
