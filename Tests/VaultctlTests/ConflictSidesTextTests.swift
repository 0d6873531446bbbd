import Foundation
import Testing
import TestSupport
import Writing

/// What `sync now` and `conflicts` say of a sync conflict (merge-design §7): which device's side
/// of the block the document kept and which branch holds the other ("Day one, block 2: kept
/// desk's; yours is branch 1"), and `doc write` naming a block with an open conflict it changes.
@Suite(.serialized)
struct ConflictSidesTextTests {
    @Test func syncNowAndConflictsSayWhichSideTheDocumentKeptAndWhichBranchHoldsTheOther() throws {
        let f = try SyncOverNetworkFixture()
        // The laptop takes paragraph 2 out while the desk rewrites it: one conflict over that block.
        try ConflictDecisionTests.change(f, f.laptop, paragraph: 1, to: nil)
        try ConflictDecisionTests.change(f, f.desk, paragraph: 1, to: "p1, rewritten at the desk")
        let synced = try f.sync()
        #expect(synced.status == 0, "\(synced.stderr)")
        let shown = try f.edit(f.laptop) { try $0.documentContent(of: f.document, in: f.project) }
        let deskKept = shown.blocks.contains { $0.text == "p1, rewritten at the desk" }
        let desk = try #require(try SyncOverNetworkFixture.open(f.laptop).vault.familyPairings().first?.peer.name)
        let expected = deskKept ? "Day one, block 2: kept \(desk)'s; yours is branch 1"
            : "Day one, a block it no longer holds: kept yours; \(desk)'s is branch 1"
        // Before, the laptop's owner read only "1 conflict(s) kept as branches", whichever paragraph changed under them.
        #expect(synced.stdout.contains("1 conflict(s) kept as branches") && synced.stdout.contains("  " + expected), "\(synced.stdout)")
        let listed = try f.laptop.run(["conflicts"])
        #expect(listed.status == 0 && listed.stdout.contains(expected), "\(listed.stdout) \(listed.stderr)")
        let conflicts = try #require(try ConflictsCommandTests.json(try f.laptop.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]])
        try #require(conflicts.count == 1, "\(conflicts)")
        let laptopID = try PairCommandTests.deviceID(f.laptop), deskID = try PairCommandTests.deviceID(f.desk)
        #expect(conflicts[0]["kept_by"] as? String == (deskKept ? deskID : laptopID), "\(conflicts[0])")
        #expect(conflicts[0]["branch_by"] as? String == (deskKept ? laptopID : deskID), "\(conflicts[0])")
        #expect(conflicts[0]["kept_here"] as? Bool == !deskKept && (conflicts[0]["block"] as? Int) == (deskKept ? 2 : nil), "\(conflicts[0])")
        #expect(JSONOutputTests.badKeys(conflicts[0]).isEmpty)
    }

    @Test func writingABlockWithAnOpenConflictNamesItAndLeavesTheConflictOpen() throws {
        let f = try SyncOverNetworkFixture()
        try ConflictDecisionTests.change(f, f.laptop, paragraph: 1, to: "Rest at home")
        try ConflictDecisionTests.change(f, f.desk, paragraph: 1, to: "Surgery on Monday")
        #expect(try f.sync().status == 0)
        let open = try #require(try ConflictsCommandTests.json(try f.laptop.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]])
        try #require(!open.isEmpty)
        // Another paragraph written: nothing said.
        let elsewhere = try f.laptop.run(["doc", "show", "Field notes", "Day one"]).stdout
        let other = try f.laptop.run(["doc", "write", "Field notes", "Day one"], stdin: elsewhere.replacingOccurrences(of: "p3", with: "p3 and more"))
        #expect(other.status == 0 && !other.stdout.contains("open sync conflict"), "\(other.stdout) \(other.stderr)")
        // The conflict's paragraph written by hand: named, in text and in --json; the conflict stays open.
        let written = try f.laptop.run(["doc", "write", "Field notes", "Day one"], stdin: "p0\n\np1, settled by hand\n\np2\n\np3 and more\n")
        #expect(written.status == 0 && written.stdout.contains("block 2 has an open sync conflict (vaultctl conflicts)"), "\(written.stdout) \(written.stderr)")
        let again = try f.laptop.run(["doc", "write", "Field notes", "Day one", "--json"], stdin: "p0\n\np1, settled at last\n\np2\n\np3 and more\n")
        let row = try ConflictsCommandTests.json(again)
        #expect(row["open_conflict_blocks"] as? [Int] == [2], "\(row)")
        let still = try #require(try ConflictsCommandTests.json(try f.laptop.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]])
        #expect(still.count == open.count)
    }
}
