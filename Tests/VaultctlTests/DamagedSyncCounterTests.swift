import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// A damaged clear column of `sync_records` (attack review s8, F18). The exchange read the columns
/// with unchecked conversions. A value the table's CHECKs refuse (a negative counter) is found by the
/// quick check when a process opens the vault, but not by a process that has it open already (the
/// daemon, where it trapped and died); one they allow (a part count with a high bit flipped) passed
/// every check and had the rebuild list that many locations. Now either makes the project local-only
/// with the reason, and the others sync.
@Suite(.serialized)
struct DamagedSyncCounterTests {
    /// Sets a clear column of every stored record of `project`, past the table's CHECKs.
    static func damage(_ column: String, to value: Int64, of project: ProjectID, in vault: CLIVault) throws {
        try Database(path: vault.directory + "/vault.db", create: false)
            .execute("PRAGMA ignore_check_constraints = ON; UPDATE sync_records SET \(column) = \(value) WHERE project_id = X'\(project.hex)'")
    }

    /// The fixture's project, synced, and a second one made on the laptop and synced to the desk.
    static func twoProjects() throws -> (f: SyncOverNetworkFixture, letters: ProjectID) {
        let f = try SyncOverNetworkFixture()
        let letters = try f.edit(f.laptop) { store in try store.createProject(named: "Letters", register: .general, kind: .document).id }
        let first = try f.sync()
        try #require(first.status == 0, "\(first.stderr)")
        return (f, letters)
    }

    @Test func aPartCountPastWhatARecordIsCutIntoMakesItsProjectLocalOnlyWithTheReasonAndTheOtherProjectsStillSync() throws {
        let (f, letters) = try Self.twoProjects()
        try Self.damage("parts", to: 1 << 40, of: f.project, in: f.laptop)

        let status = try f.hosts.run(.laptop, f.laptop, ["sync", "status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("project \(f.project.hex): LOCAL-ONLY: the sync state of project"), "\(status.stdout)")
        #expect(status.stdout.contains("is damaged: a stored record's number of parts is 1099511627776"), "\(status.stdout)")
        #expect(status.stdout.contains("project \(letters.hex): syncs"), "\(status.stdout)")
        let listed = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let projects = try #require(listed["projects"] as? [[String: Any]], "\(listed)")
        #expect(projects.contains { $0["project"] as? String == f.project.hex && $0["state"] as? String == "local-only"
                                    && ($0["reason"] as? String)?.contains("number of parts is 1099511627776") == true }, "\(projects)")
        #expect(projects.contains { $0["project"] as? String == letters.hex && $0["state"] as? String == "ready" }, "\(projects)")

        // The other project syncs on: a document made in it on the laptop reaches the desk.
        let node = try f.edit(f.laptop) { store in try store.addNode(.scene, titled: "To the harbour master", in: letters).id }
        let synced = try f.sync()
        // The run completed, but the damaged project did not sync: exit 75 names it (attack review s8, F20).
        #expect(synced.status == 75, "\(synced.status): \(synced.stderr)")
        #expect(synced.stderr.contains("project \(f.project.hex) with ") && synced.stderr.contains("local-only:"), "\(synced.stderr)")
        #expect(synced.stdout.contains("Skipped project \(f.project.hex), local-only:") && synced.stdout.contains("number of parts is"), "\(synced.stdout)")
        #expect(try f.edit(f.desk) { store in try store.nodes(in: letters).map(\.id) }.contains(node))
    }

    @Test func aNegativeCounterUnderTheAnsweringDaemonLeavesOnlyItsProjectAndTheDaemonKeepsRunning() throws {
        let (f, letters) = try Self.twoProjects()
        try Self.damage("counter", to: -5, of: f.project, in: f.desk)
        try f.type("tide", into: 1, on: f.laptop)
        _ = try f.edit(f.laptop) { store in try store.addNode(.scene, titled: "To the harbour master", in: letters) }

        let synced = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, f.syncArguments() + ["--json"]))
        let projects = try #require(((synced["peers"] as? [[String: Any]])?.first?["projects"]) as? [[String: Any]], "\(synced)")
        #expect(projects.contains { $0["project"] as? String == f.project.hex
                                    && ($0["skipped"] as? String)?.hasPrefix("peer-damagedSyncState") == true
                                    && ($0["skipped"] as? String)?.contains("counter is -5") == true }, "\(projects)")
        #expect(projects.contains { $0["project"] as? String == letters.hex && ($0["sent"] as? Int ?? 0) >= 1 && $0["skipped"] is NSNull }, "\(projects)")
        #expect(f.daemon?.process.isRunning == true, "the desk's daemon died")
        // And again: the daemon answers every later exchange too. The run completes (a run that
        // failed would exit 74); the project it leaves is named by the exit, 75 (attack review s8, F20).
        let again = try f.sync()
        #expect(again.status == 75, "\(again.status): \(again.stderr)")
        #expect(again.stderr.contains("project \(f.project.hex) with ") && again.stderr.contains("peer-damagedSyncState"), "\(again.stderr)")
        #expect(f.daemon?.process.isRunning == true, "the desk's daemon died")
    }
}
