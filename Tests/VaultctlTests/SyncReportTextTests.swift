import CryptoVault
@testable import Sync
import Testing
@testable import vaultctl
import Writing

/// What `vaultctl sync now` prints of a run (reviewer 12 on 37a2123, LOW): a project whose exchange
/// rows are damaged is local-only in the run's report (access "none", with the reason), and was also
/// printed as refused with an empty reason ("Refused project P:  (recorded …)") and counted twice, so
/// the run said "Synced 0 project(s)" while another project synced.
struct SyncReportTextTests {
    @Test func aLocalOnlyProjectIsSaidOnceWithItsReasonAndTheProjectThatSyncedIsCounted() throws {
        let (alpha, beta, gamma) = (try ProjectID.random(), try ProjectID.random(), try ProjectID.random())
        var report = SyncRunReport()
        // As `SyncInitiator` reports an offered project whose exchange rows here are damaged.
        var damaged = SyncRunReport.Project(project: alpha, access: "none")
        damaged.localOnly = "the sync state of project \(alpha) is damaged: the table sync_peer_vectors holds 1 row(s) no writer makes"
        var synced = SyncRunReport.Project(project: beta, access: "mine")
        synced.sent = 1
        report.projects = [damaged, synced, SyncRunReport.Project(project: gamma, access: "none", refused: ["notShared"])]

        let lines = SyncCommands.reportLines(report, peer: "desk", mine: true)
        // Gamma's offer refused counts among the run's refusals, as ever.
        #expect(lines.first == "Synced 1 project(s) with desk: sent 1 record(s), received 0, 1 refused.", "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("Refused project \(alpha.hex)") }, "\(lines)")
        #expect(lines.contains("Skipped project \(alpha.hex), local-only: \(damaged.localOnly ?? "")"), "\(lines)")
        #expect(lines.contains("Refused project \(gamma.hex): notShared (recorded in the audit log as sync.exchange-refused)"), "\(lines)")
        #expect(!lines.contains { $0.contains(":  (") }, "no empty reason: \(lines)")
    }

    /// An own device of an older build, asked as that build asks (the run went on): `sync now` says
    /// once which device to update, after the run's own lines (daemon13's open note on 4c3a795).
    @Test func anOlderBuildsNoteIsSaidOnceAfterTheRun() throws {
        var report = SyncRunReport()
        var synced = SyncRunReport.Project(project: try ProjectID.random(), access: "mine")
        synced.received = 2
        report.projects = [synced]
        report.notes = [SyncProjectsRequest.olderBuildNote(peer: "desk")]
        let lines = SyncCommands.reportLines(report, peer: "desk", mine: true)
        #expect(lines.first == "Synced 1 project(s) with desk: sent 0 record(s), received 2.", "\(lines)")
        #expect(lines.filter { $0.contains("update vaultctl on desk") }.count == 1, "\(lines)")
        #expect(lines.last == "Note: desk runs an older build of vaultctl, whose 'sync.projects' takes no list of the projects the asker holds: "
                + "it was asked as that build asks, so it opened a privileged session for each chart it described: update vaultctl on desk.", "\(lines)")
    }

    /// Reviewer 13 (q1.sh): an answerer that refuses the whole exchange for its damaged sync state
    /// made the asker print a Swift dump ("vaultctl: error: SyncPeerFailure(code: …)") and exit 1.
    @Test func aPeersRefusalForItsDamagedStateIsSaidInWordsWithWhatMendsItAndExits65() {
        let words = "vm refused 'sync.projects': the sync state of device 01 is damaged: the table sync_peers holds 1 row(s) no writer makes"
        let report = FailureReport(SyncPeerFailure(.damagedSyncState, words))
        #expect(report.message == words)
        #expect(report.hint == "the other device's sync state is damaged: 'vaultctl repair' on that device mends it")
        #expect(report.exitCode == .dataError)
        #expect(FailureReport(SyncPeerFailure(.tooManyPending, "vm refused 'sync.pull': too many pending")).hint == nil)
    }
}
