import Appliance
import CryptoVault
import Sync
import Testing
import TestSupport
import Writing

/// A project whose records are refused at every exchange does not sync, though every exchange
/// completes (attack review s8, F20): the run's report says the project did not wholly sync, and
/// `SyncStatus.projects` (what `vaultctl sync status` shows) keeps, per device and way, how many
/// records were refused, why and since when, and never calls the project in sync, until an exchange
/// of the project with that device refuses nothing that way.
@Suite struct SyncRefusalStatusTests {
    typealias F = SyncExchangeFixture

    static func status(of project: ProjectID, in vault: TestVault) throws -> SyncProjectStatus {
        try #require(try SyncStatus.projects(vault.unlocked).first { $0.project == project })
    }

    @Test func recordsThePeerRefusesAreKeptForSyncStatusWithWhyAndSinceWhenUntilItTakesThem() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let brief = try F.project(f.desk, "Brief"), memo = try F.project(f.desk, "Memo")
        let briefDocument = try F.document(f.desk, in: brief, "Draft", ["first", "second"])
        let memoDocument = try F.document(f.desk, in: memo, "Note", ["one"])
        for project in [brief, memo] {
            try F.share(project, of: f.desk, with: f.laptop, role: .editor)
        }
        try f.syncLaptop()
        #expect(try Self.status(of: brief.id, in: f.laptop).syncs, "synced once, nothing refused")
        let laptopBrief = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(brief.id) }
        let laptopMemo = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(memo.id) }
        try F.edit(f.laptop, laptopBrief, briefDocument, block: 1, to: "second, from the laptop")
        try F.edit(f.laptop, laptopMemo, memoDocument, block: 0, to: "one, from the laptop")

        // The owner makes the laptop a viewer of the brief after its offer said editor, before its push.
        let desk = f.desk.unlocked, laptopID = f.laptopKeys.profile.deviceID, deskID = f.deskKeys.profile.deviceID
        let transport = ViewerRefusalTests.DemotingTransport(try f.transport()) {
            try SyncControl.shared(brief.compartment, with: laptopID, role: .viewer, in: desk)
        }
        let report = try SyncInitiator(vault: f.laptop.unlocked, transport: transport, coordinator: nil).run()
        let briefEntry = try #require(report.projects.first { $0.project == brief.id })
        let memoEntry = try #require(report.projects.first { $0.project == memo.id })
        #expect(briefEntry.notSynced && briefEntry.recordsRefusedByPeer == 1, "\(report)")
        #expect(!memoEntry.notSynced, "\(report)")

        // sync status: the brief is not in sync, the laptop's one record refused by the desk, and why.
        let refused = try Self.status(of: brief.id, in: f.laptop)
        #expect(!refused.syncs)
        try #require(refused.refused.count == 1, "\(refused)")
        let refusal = refused.refused[0]
        #expect(refusal.peer == deskID && refusal.project == brief.id && refusal.side == .peer, "\(refusal)")
        #expect(refusal.records == 1 && refusal.reasons == ["viewerCannotWrite"], "\(refusal)")
        #expect(refusal.since > 0 && refusal.lastAt >= refusal.since, "\(refusal)")
        let memoStatus = try Self.status(of: memo.id, in: f.laptop)
        #expect(memoStatus.syncs && memoStatus.refused.isEmpty, "the other project syncs: \(memoStatus)")
        // Nothing refused on the desk's side of its own exchanges (it asked nothing).
        #expect(try SyncStatus.refusals(f.desk.unlocked).isEmpty)

        // The owner makes it an editor again: the next exchange takes the laptop's record, and the
        // refusal is forgotten; since then the project syncs.
        try SyncControl.shared(brief.compartment, with: laptopID, role: .editor, in: desk)
        let again = try f.syncLaptop()
        #expect(again.projects.allSatisfy { !$0.notSynced }, "\(again)")
        #expect(try F.texts(f.desk, brief.id, briefDocument) == ["first", "second, from the laptop"])
        let healed = try Self.status(of: brief.id, in: f.laptop)
        #expect(healed.syncs && healed.refused.isEmpty, "\(healed)")
        #expect(try SyncStatus.refusals(f.laptop.unlocked).isEmpty)
    }
}
