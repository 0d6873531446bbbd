import PeerChannel
@testable import Sync
import Testing
import TestSupport

/// What `sync status` ("last try failed: …") and the run's `sync.exchange` entry name a failed run by
/// (review 17 s13, LOW 3): a channel error (the peer's service failed) by its code. Before, the owner
/// read a Swift type name, "CodedError<PeerChannelErrorCode>".
@Suite struct RunErrorCodeTests {
    @Test func aChannelErrorIsNamedByItsCodeNeverByItsType() {
        #expect(SyncInitiator.code(of: PeerChannelError(.serviceFailed, "the service for 'sync.projects' failed")) == "serviceFailed")
        #expect(SyncInitiator.code(of: SyncExchangeError(.paused, "paused here")) == "paused")
    }

    /// A request the answering vault fails for another cause than a refusal (its writing store's
    /// table gone: a database error, neither a sync nor an exchange error) is recorded there as
    /// `serviceFailed` (before 27e9f2b: nothing was recorded), never with its message; the asker's
    /// run fails, and keeps the failure by its code.
    @Test func aFailedAnswerIsRecordedByTheAnswererAsServiceFailed() throws {
        let f = try SyncExchangeFixture()
        let project = try SyncExchangeFixture.project(f.desk, "Case file")
        _ = try SyncExchangeFixture.document(f.desk, in: project, "Notes", ["first"])
        try f.syncLaptop()
        try f.desk.tamper("ALTER TABLE writing_projects RENAME TO writing_projects_gone")

        let failure = #expect(throws: PeerChannelError.self) { try f.syncLaptop() }
        #expect(failure?.code == .serviceFailed, "\(String(describing: failure))")
        let reasons = SyncExchangeFixture.details(f.desk, .syncExchangeRefused, "reason")
        #expect(reasons.contains(SyncResponder.serviceFailed), "\(reasons)")
        // Only its code: the store's message (which could name a table, or more) is not in the entry.
        let entries = f.desk.recording.events.withLock { $0.filter { $0.action == .syncExchangeRefused } }
        #expect(entries.allSatisfy { $0.details.allSatisfy { !$0.value.contains("writing_projects") } }, "\(entries)")
        let kept = try f.laptop.unlocked.transaction { tx in
            try SyncExchangeStore(database: tx.database).peer(f.deskKeys.profile.deviceID)?.lastError
        }
        #expect(kept == "serviceFailed")
    }
}
