import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// One project's failure never stops the others (SECURITY.md §19.9): a project whose change records
/// fail its step, here or on the peer (the answerer's stored records of it damaged, so it refuses
/// that project's pull with `damagedSyncState`), is left for the run with its reason, recorded as
/// `sync.project-skipped` and kept for `sync status`, while the other project syncs; and once the
/// project syncs again the reason is forgotten.
@Suite(.serialized) struct ProjectIsolationTests {
    typealias F = SyncExchangeFixture

    @Test func aProjectThePeerCannotSyncIsSkippedWithItsReasonAndTheOtherSyncs() throws {
        let f = try F()
        let broken = try F.project(f.desk, "Broken"), honest = try F.project(f.desk, "Honest")
        let brokenDocument = try F.document(f.desk, in: broken, "One", ["first words"])
        let honestDocument = try F.document(f.desk, in: honest, "Two", ["kept in step"])
        try f.syncLaptop()
        #expect(try F.texts(f.laptop, broken.id, brokenDocument) == ["first words"])
        // The desk edits both; then its stored records of one project lose a row: that project is
        // local-only there, and the desk refuses its requests.
        try F.edit(f.desk, broken, brokenDocument, block: 0, to: "second words")
        try F.edit(f.desk, honest, honestDocument, block: 0, to: "still in step")
        try f.syncLaptop()
        try f.desk.tamper("DELETE FROM sync_records WHERE project_id = x'\(broken.id.hex)' AND counter = 1")
        try F.edit(f.desk, honest, honestDocument, block: 0, to: "in step after the damage")

        let report = try f.syncLaptop()
        let left = try #require(report.projects.first { $0.project == broken.id })
        #expect(left.skipped?.hasPrefix("peer-damagedSyncState:") == true, "\(left)")
        let synced = try #require(report.projects.first { $0.project == honest.id })
        #expect(synced.skipped == nil && synced.localOnly == nil && synced.received > 0, "\(synced)")
        #expect(try F.texts(f.laptop, honest.id, honestDocument) == ["in step after the damage"])
        // Recorded on both sides with the reason; kept for `sync status` on the asker.
        #expect(F.details(f.laptop, .syncProjectSkipped, "reason") == ["peer-damagedSyncState"])
        #expect(F.details(f.laptop, .syncProjectSkipped, "project") == [broken.id.hex])
        #expect(F.details(f.desk, .syncExchangeRefused, "reason").contains("damagedSyncState"))
        let status = try SyncStatus.projects(f.laptop.unlocked)
        let brokenStatus = try #require(status.first { $0.project == broken.id })
        #expect(brokenStatus.skipped.map(\.peer) == [f.deskKeys.profile.deviceID])
        #expect(brokenStatus.skipped.first?.reason.hasPrefix("peer-damagedSyncState: ") == true, "\(brokenStatus)")
        #expect(status.first { $0.project == honest.id }?.skipped == [])
        #expect(try f.laptop.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).peer(f.deskKeys.profile.deviceID)?.lastError } == nil)
    }

    @Test func aSkippedProjectsReasonIsForgottenOnceItSyncsAgain() throws {
        let f = try F()
        let project = try F.project(f.desk, "Notes")
        let document = try F.document(f.desk, in: project, "One", ["words"])
        try f.syncLaptop()
        let desk = f.deskKeys.profile.deviceID
        try f.laptop.unlocked.transaction { tx in
            try SyncExchangeStore(database: tx.database).setSkipped(project.id, by: desk, reason: "recordTooLarge: a record of 5 MiB", at: 1)
        }
        #expect(try SyncStatus.projects(f.laptop.unlocked).first?.skipped.map(\.reason) == ["recordTooLarge: a record of 5 MiB"])
        try F.edit(f.desk, project, document, block: 0, to: "more words")
        try f.syncLaptop()
        #expect(try SyncStatus.projects(f.laptop.unlocked).first?.skipped == [])
    }
}
