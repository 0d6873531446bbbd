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

        let lines = SyncCommands.reportLines(report, peer: "desk")
        // Gamma's offer refused counts among the run's refusals, as ever.
        #expect(lines.first == "Synced 1 project(s) with desk: sent 1 record(s), received 0, 1 refused.", "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("Refused project \(alpha.hex)") }, "\(lines)")
        #expect(lines.contains("Skipped project \(alpha.hex), local-only: \(damaged.localOnly ?? "")"), "\(lines)")
        #expect(lines.contains("Refused project \(gamma.hex): notShared (recorded in the audit log as sync.exchange-refused)"), "\(lines)")
        #expect(!lines.contains { $0.contains(":  (") }, "no empty reason: \(lines)")
    }
}
