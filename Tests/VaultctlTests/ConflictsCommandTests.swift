import Foundation
import Testing
import TestSupport

/// `vaultctl conflicts [PROJECT]`: the open branches of kind sync-conflict (issue 17), listed until
/// the branch commands resolve them; other branches are not listed. The conflicts are real: two
/// devices change one block and sync (before, F17-13, the test made one by hand with `branch create
/// --kind sync-conflict`, which sync alone may make now).
@Suite(.serialized)
struct ConflictsCommandTests {
    static func json(_ result: CLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
    }

    static func open(_ vault: CLIVault) throws -> [[String: Any]] {
        try #require(try Self.json(try vault.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]])
    }

    @Test func openSyncConflictsAreListedUntilResolved() throws {
        let f = try SyncOverNetworkFixture()
        let empty = try f.laptop.run(["conflicts"])
        #expect(empty.status == 0 && empty.stdout.contains("No open sync conflicts."), "\(empty.stderr)")
        // A person's own proposal is no sync conflict.
        let manual = try f.laptop.run(["branch", "create", "Field notes", "Day one", "--by", "editor"], stdin: "p0\n\nIt poured.\n\np2\n\np3\n")
        #expect(manual.status == 0, "\(manual.stderr)")
        // Both devices change paragraph 2, then sync: one side stays, the other is a branch on both.
        try ConflictDecisionTests.change(f, f.laptop, paragraph: 1, to: "It rained.")
        try ConflictDecisionTests.change(f, f.desk, paragraph: 1, to: "It hailed.")
        for _ in 0..<2 { #expect(try f.sync().status == 0) }
        for vault in [f.laptop, f.desk] {
            let conflicts = try Self.open(vault)
            #expect(conflicts.count == 1, "\(conflicts)")
            #expect(conflicts.first?["kind"] as? String == "sync-conflict" && conflicts.first?["title"] as? String == "Day one", "\(conflicts)")
        }
        #expect(try Self.open(f.laptop).first?["number"] as? Int == 2, "the person's branch is number 1")
        let text = try f.laptop.run(["conflicts"])
        #expect(text.stdout.contains("Day one") && text.stdout.contains("sync-conflict"), "\(text.stdout)")
        // Resolved on the laptop: listed nowhere once the decision has synced.
        #expect(try f.laptop.run(["branch", "discard", "Field notes", "Day one", "2"]).status == 0)
        #expect(try Self.open(f.laptop).isEmpty)
        #expect(try f.sync().status == 0)
        #expect(try Self.open(f.desk).isEmpty)
        let nowhere = try f.laptop.run(["conflicts", "Nowhere"])
        #expect(nowhere.status == 66 && nowhere.stderr.contains("no project 'Nowhere'"), "\(nowhere.status) \(nowhere.stderr)")
    }

    @Test func aSyncConflictBranchMadeByHandIsRefusedAsUsageAndNothingIsMade() throws {
        let vault = try CLIVault()
        #expect(try vault.run(["project", "create", "Harbour", "--register", "fiction"]).status == 0)
        #expect(try vault.run(["doc", "add", "Harbour", "Arrival"]).status == 0)
        #expect(try vault.run(["doc", "write", "Harbour", "Arrival"], stdin: "It rained.\n").status == 0)
        let refused = try vault.run(["branch", "create", "Harbour", "Arrival", "--kind", "sync-conflict", "--by", "sync"], stdin: "It hailed.\n")
        #expect(refused.status == 64)
        #expect(refused.stderr == "vaultctl: error: --kind sync-conflict: a sync-conflict branch is made by sync only, when two devices changed one "
                + "block; propose yours as manual (the default), ai-suggestion or research-insert\n", "\(refused.stderr)")
        #expect(try Self.open(vault).isEmpty)
        let listed = try vault.run(["branch", "list", "Harbour", "Arrival", "--json"])
        let branches = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any]
        #expect(listed.status == 0 && branches?.isEmpty == true, "\(listed.stdout)")
        // An unknown kind is named with the kinds a person may give.
        let unknown = try vault.run(["branch", "create", "Harbour", "Arrival", "--kind", "hail"], stdin: "It hailed.\n")
        #expect(unknown.status == 64 && unknown.stderr == "vaultctl: error: --kind is manual, ai-suggestion or research-insert\n", "\(unknown.stderr)")
    }
}
