import Foundation
import Testing
import TestSupport

/// `vaultctl conflicts [PROJECT]`: the open branches of kind sync-conflict (issue 17), listed until
/// the branch commands resolve them; other branches are not listed.
struct ConflictsCommandTests {
    static func json(_ result: CLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
    }

    @Test func openSyncConflictsAreListedUntilResolved() throws {
        let vault = try CLIVault()
        #expect(try vault.run(["project", "create", "Harbour", "--register", "fiction"]).status == 0)
        #expect(try vault.run(["doc", "add", "Harbour", "Arrival"]).status == 0)
        #expect(try vault.run(["doc", "write", "Harbour", "Arrival"], stdin: "It rained.\n").status == 0)
        let empty = try vault.run(["conflicts"])
        #expect(empty.status == 0 && empty.stdout.contains("No open sync conflicts."), "\(empty.stderr)")
        #expect(try vault.run(["branch", "create", "Harbour", "Arrival", "--by", "editor"], stdin: "It poured.\n").status == 0)
        let conflict = try vault.run(["branch", "create", "Harbour", "Arrival", "--kind", "sync-conflict", "--by", "sync"], stdin: "It hailed.\n")
        #expect(conflict.status == 0, "\(conflict.stderr)")
        let listed = try Self.json(try vault.run(["conflicts", "Harbour", "--json"]))
        let conflicts = try #require(listed["conflicts"] as? [[String: Any]])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?["number"] as? Int == 2 && conflicts.first?["kind"] as? String == "sync-conflict")
        #expect(conflicts.first?["title"] as? String == "Arrival")
        let text = try vault.run(["conflicts"])
        #expect(text.stdout.contains("Arrival") && text.stdout.contains("sync-conflict"))
        #expect(try vault.run(["branch", "discard", "Harbour", "Arrival", "2"]).status == 0)
        #expect(try #require(try Self.json(try vault.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]]).isEmpty)
        let nowhere = try vault.run(["conflicts", "Nowhere"])
        #expect(nowhere.status == 66 && nowhere.stderr.contains("no project 'Nowhere'"), "\(nowhere.status) \(nowhere.stderr)")
    }
}
