import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// Review 17 s13, LOW 5 (reviewer13 q1.sh): the answering device refuses every exchange for damage of
/// its own sync state (here its row of the asking laptop, `sync_peers.paused` past its CHECK). The
/// laptop printed "vaultctl: error: SyncPeerFailure(code: …)", exited 1, and its `sync status` said
/// the project "syncs". Now it names the device, what is wrong there and what mends it (exit 65),
/// and `sync status` says the project NOT IN SYNC with that device (text and --json), until an
/// exchange with it completes.
@Suite(.serialized)
struct PeerRefusesEverySyncCommandTests {
    @Test func aDeviceRefusingEverySyncForItsDamagedStateIsNamedExits65AndItsProjectsAreNotInSyncWithIt() throws {
        let f = try SyncOverNetworkFixture()
        try Database(path: f.desk.directory + "/vault.db", create: false)
            .execute("PRAGMA ignore_check_constraints = ON; UPDATE sync_peers SET paused = 7")

        let refused = try f.sync()
        #expect(refused.status == 65, "\(refused.status): \(refused.stderr)")
        #expect(refused.stderr.contains(" refuses every sync with this device: its sync state there is damaged ("), "\(refused.stderr)")
        #expect(refused.stderr.contains("the table sync_peers holds 1 row(s)") && refused.stderr.contains("nothing on this device needs mending"),
                "\(refused.stderr)")
        #expect(!refused.stderr.contains("SyncPeerFailure") && !refused.stderr.contains("code:"), "\(refused.stderr)")

        let status = try f.hosts.run(.laptop, f.laptop, ["sync", "status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(!status.stdout.contains("project \(f.project.hex): syncs"), "\(status.stdout)")
        #expect(status.stdout.contains("project \(f.project.hex): NOT IN SYNC with \(f.deskFingerprint)"), "\(status.stdout)")
        #expect(status.stdout.contains("1 project(s) NOT IN SYNC with it") && status.stdout.contains(" failed: peer-damagedSyncState"),
                "\(status.stdout)")
        #expect(status.stdout.contains("peer-damagedSyncState: ") && status.stdout.contains(" refuses every sync with this device"), "\(status.stdout)")
        let listed = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let projects = try #require(listed["projects"] as? [[String: Any]], "\(listed)")
        let project = try #require(projects.first { $0["project"] as? String == f.project.hex }, "\(projects)")
        #expect(project["syncs"] as? Bool == false, "\(project)")
        #expect(((project["skipped"] as? [[String: Any]])?.first?["reason"] as? String)?.hasPrefix("peer-damagedSyncState: ") == true, "\(project)")
        let peers = try #require(listed["peers"] as? [[String: Any]], "\(listed)")
        #expect(peers.first?["projects_not_in_sync"] as? [String] == [f.project.hex], "\(peers)")

        // Mended on the desk, its daemon stopped (its damaged row comes back paused: the owner resumes
        // it there): the next sync completes and the project syncs again.
        let daemon = try #require(f.daemon)
        kill(daemon.process.processIdentifier, SIGKILL)
        daemon.process.waitUntilExit()
        let repaired = try f.hosts.run(.desk, f.desk, ["repair"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(try f.hosts.run(.desk, f.desk, ["sync", "resume"]).status == 0)
        try f.startDaemon()
        let again = try f.sync()
        #expect(again.status == 0, "\(again.status): \(again.stderr)")
        let after = try f.hosts.run(.laptop, f.laptop, ["sync", "status"])
        #expect(after.stdout.contains("project \(f.project.hex): syncs"), "\(after.stdout)")
    }
}
