import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// A damaged row of one of the sync module's other tables (closing note s10, "Left open"; N-s9-6's
/// rule for `sync_records` extended): a hostile or flipped row of `sync_own_floors`,
/// `sync_held_documents`, `sync_left_out`, `sync_conflict_branches` or (closing note s13)
/// `sync_set_aside` that names a project here sent
/// the whole writing store to the in-memory mode (no project shown, nothing written). Now the vault
/// opens as ever, only that project is local-only with the table in the reason, and `vaultctl
/// repair` mends the row; the project then syncs again.
@Suite(.serialized)
struct DamagedSyncRowsTests {
    enum Kind: String, CaseIterable, Sendable {
        case ownFloor = "sync_own_floors"
        case heldDocument = "sync_held_documents"
        case leftOut = "sync_left_out"
        case conflictBranch = "sync_conflict_branches"
        case setAside = "sync_set_aside"
        case forkLeftOut = "sync_fork_left_out"

        /// A row past the table's CHECK, naming the fixture's project.
        func row(_ f: SyncOverNetworkFixture) -> String {
            let project = "X'\(f.project.hex)'", other = "X'\(String(repeating: "ab", count: 16))'"
            switch self {
            case .ownFloor: return "INSERT INTO sync_own_floors (project_id, counter, set_at) VALUES (\(project), -3, 0)"
            case .heldDocument: return "INSERT INTO sync_held_documents (document_id, project_id, parts, held_at) VALUES (X'\(f.document.hex)', \(project), -1, 0)"
            case .leftOut: return "INSERT INTO sync_left_out (project_id, kind, id) VALUES (\(project), 'blocks', \(other))"
            case .conflictBranch: return "INSERT INTO sync_conflict_branches (conflict, project_id, branch_id) VALUES (X'0102', \(project), \(other))"
            // Another device's record set aside, its counter past its CHECK, its record nowhere (closing note s13).
            case .setAside: return """
                INSERT INTO sync_set_aside (hash, project_id, device_id, counter, lamport, parts, stored_at, refused_by, set_at)
                VALUES (randomblob(32), \(project), \(other), -5, 1, 1, 0, \(other), 0)
                """
            // A fork's copy left out, its counter past its CHECK, its record nowhere (fork14's "left open").
            case .forkLeftOut: return """
                INSERT INTO sync_fork_left_out (hash, project_id, device_id, counter, parts, forked_by, left_at)
                VALUES (randomblob(32), \(project), \(other), -5, 1, \(other), 0)
                """
            }
        }

        /// What `repair` says it did with the row.
        var mended: String {
            switch self {
            case .ownFloor: "waits, view-only, for one sync with your own device"
            case .heldDocument, .conflictBranch, .setAside, .forkLeftOut: "Dropped 1 damaged row(s) of \(rawValue)"
            case .leftOut: "Mended 1 damaged row(s) of \(rawValue)"
            }
        }
    }

    @Test(arguments: Kind.allCases)
    func aDamagedRowLeavesOnlyItsProjectLocalOnlyWithTheReasonAndRepairMendsIt(_ kind: Kind) throws {
        let f = try SyncOverNetworkFixture()
        try f.type("beforedamage", into: 1, on: f.laptop)
        try Database(path: f.laptop.directory + "/vault.db", create: false, readOnly: false)
            .execute("PRAGMA ignore_check_constraints = ON; " + kind.row(f))

        // The vault opens as ever: the document reads, no in-memory mode, a warning naming the table.
        let shown = try f.hosts.run(.laptop, f.laptop, ["doc", "show", "Field notes", "Day one"])
        #expect(shown.status == 0 && shown.stdout.contains("beforedamage"), "\(kind): \(shown.stdout) \(shown.stderr)")
        #expect(!shown.stderr.contains("in-memory mode"), "\(kind): \(shown.stderr)")
        #expect(shown.stderr.contains("the sync state of project \(f.project.hex) is damaged: 1 row(s) of \(kind.rawValue)")
                && shown.stderr.contains("'vaultctl repair' mends it"), "\(kind): \(shown.stderr)")
        let status = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        #expect(status["in_memory"] == nil, "\(kind): \(status)")
        let projects = try #require(status["projects"] as? [[String: Any]], "\(status)")
        #expect(projects.contains { $0["project"] as? String == f.project.hex && $0["state"] as? String == "local-only"
                                    && ($0["reason"] as? String)?.contains("row(s) of \(kind.rawValue)") == true }, "\(kind): \(projects)")
        // A write goes on locally (a floor comes with the project view-only: no hostile row makes it so).
        if kind != .ownFloor { try f.type("whiledamaged", into: 2, on: f.laptop) }

        let mended = try f.hosts.run(.laptop, f.laptop, ["repair"])
        #expect(mended.status == 0, "\(kind): \(mended.stderr)")
        #expect(mended.stdout.contains(kind.mended), "\(kind): \(mended.stdout)")
        let log = try f.laptop.run(["audit", "log", "--json", "--details", "--action", "sync.rows-mended"])
        #expect(log.stdout.contains(kind.rawValue), "\(kind): \(log.stdout)")
        let clean = try f.hosts.run(.laptop, f.laptop, ["doc", "show", "Field notes", "Day one"])
        #expect(!clean.stderr.contains("is damaged"), "\(kind): \(clean.stderr)")

        // The project syncs again: the words typed meanwhile reach the desk.
        let synced = try f.sync()
        #expect(synced.status == 0, "\(kind): \(synced.stdout) \(synced.stderr)")
        try RepairFromDeviceTests.requireReady(f)
        if kind != .ownFloor {
            #expect(try f.state(f.desk).text.joined(separator: " ").contains("whiledamaged"), "\(kind)")
        }
        #expect(try f.laptop.run(["audit", "verify"], unlock: false).status == 0)
    }
}
