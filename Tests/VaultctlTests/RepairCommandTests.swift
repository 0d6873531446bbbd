import Appliance
import AuditChain
import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// It always launches (issue 17): a project whose sync state is damaged is shown local-only with
/// its reason by `vaultctl sync status` and skipped with that reason by `vaultctl sync now`, over the
/// real channel between two hosts (network namespaces where the machine allows them).
@Suite(.serialized)
struct RepairCommandTests {
    static func json(_ result: CLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
    }

    /// Every sealed part of the laptop's stored change records zeroed: none opens any more.
    static func damageSyncState(_ vault: CLIVault) throws {
        try Database(path: vault.directory + "/vault.db", create: false)
            .execute("UPDATE sealed_records SET sealed = zeroblob(length(sealed)) WHERE module = 'sync'")
    }

    @Test func aDamagedSyncStateIsShownLocalOnlyWithItsReasonAndSyncNowSaysWhyItSkipped() throws {
        let f = try SyncOverNetworkFixture()
        let ready = try Self.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let before = try #require((ready["projects"] as? [[String: Any]])?.first)
        #expect(before["state"] as? String == "ready" && before["records"] as? Int == 1, "\(before)")

        try Self.damageSyncState(f.laptop)
        let status = try f.hosts.run(.laptop, f.laptop, ["sync", "status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("project \(f.project.hex): LOCAL-ONLY: the sync state of project"), "\(status.stdout)")
        #expect(status.stdout.contains("does not open"), "\(status.stdout)")
        let listed = try Self.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let project = try #require((listed["projects"] as? [[String: Any]])?.first)
        #expect(project["project"] as? String == f.project.hex && project["state"] as? String == "local-only")
        #expect((project["reason"] as? String)?.contains("does not open") == true, "\(project)")

        // Sync goes on without the project, and says why it was skipped.
        let synced = try f.sync()
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains("Skipped project \(f.project.hex), local-only:") && synced.stdout.contains("does not open"),
                "\(synced.stdout)")
        #expect(synced.stdout.contains("repair --from"))
        let report = try Self.json(try f.hosts.run(.laptop, f.laptop, f.syncArguments() + ["--json"]))
        let projects = try #require(((report["peers"] as? [[String: Any]])?.first?["projects"]) as? [[String: Any]], "\(report)")
        #expect(projects.contains { $0["project"] as? String == f.project.hex && ($0["local_only"] as? String)?.contains("does not open") == true },
                "\(projects)")
    }
}
