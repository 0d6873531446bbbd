import Foundation
import Testing
import TestSupport

/// Issue 15: "In a privileged project each of these reads only through a session". Each command's
/// own test checks a few of them; this suite walks every writing command that reads or changes a
/// privileged project's documents, naming the project by id (so no name lookup can be what refuses),
/// and holds each to the same answer: exit 77, the hint to give --purpose, not a word of the note on
/// either stream, and nothing written: the audit log gains only the unlock of each run.
@Suite("privileged writing commands", .serialized)
struct PrivilegedWritingCommandsTests {
    /// The note's words: none of them may appear in a refusal.
    static let note = "Reports sleeping badly since the accident."

    /// Every writing command over project `id`, document "Session 1", version and branch 1.
    static func commands(_ id: String, root: String) -> [[String]] {
        let doc = "Session 1"
        return [
            ["doc", "list", id], ["doc", "show", id, doc], ["doc", "add", id, "Session 2"], ["doc", "write", id, doc, "-"],
            ["doc", "move", id, doc, "--top"], ["doc", "rm", id, doc, "--yes"], ["doc", "import", id, "Imported", "-"],
            ["history", id, doc],
            ["snapshot", "create", id, doc], ["snapshot", "list", id, doc], ["snapshot", "show", id, doc, "1"],
            ["snapshot", "restore", id, doc, "1"], ["snapshot", "diff", id, doc, "1"],
            ["branch", "create", id, doc, "-"], ["branch", "list", id, doc], ["branch", "show", id, doc, "1"],
            ["branch", "diff", id, doc, "1"], ["branch", "adopt", id, doc, "1"], ["branch", "discard", id, doc, "1"],
            ["branch", "revert", id, doc, "1"],
            ["search", id, "sleeping"], ["template", "use", id, "soap-note"], ["snippet", "insert", id, doc, "any"],
            ["export", id, "--format", "md", "-o", root + "/chart.md"], ["activity", id], ["project", "show", id],
            ["project", "snapshot", id], ["project", "versions", id], ["project", "restore", id, "1"],
            ["entry", "list", id], ["entry", "add", id, "Mother", "--kind", "character", "-"], ["entry", "show", id, "Mother"],
            ["entry", "rm", id, "Mother", "--yes"],
            // Named, it is refused too: "no open sync conflicts" of a project not read would be false (review 20, F20-11).
            ["conflicts", id],
        ]
    }

    /// The audit log's actions, oldest first.
    static func actions(_ vault: CLIVault) throws -> [String] {
        let log = try WritingCommandTests.ok(vault, ["audit", "log", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]])
        return entries.compactMap { $0["action"] as? String }
    }

    @Test("every writing command on a privileged project named by id, without a session: 77, the --purpose hint, no word of it, nothing written")
    func everyCommandIsRefused() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "write up the session"]
        try WritingCommandTests.intake(vault, purpose: purpose, text: Self.note + "\n")
        try WritingCommandTests.ok(vault, ["snapshot", "create", "Intake", "Session 1"] + purpose)
        try WritingCommandTests.ok(vault, ["branch", "create", "Intake", "Session 1"] + purpose, stdin: "Reports sleeping well.\n")
        try WritingCommandTests.ok(vault, ["project", "snapshot", "Intake"] + purpose)
        try WritingCommandTests.ok(vault, ["entry", "add", "Intake", "Mother", "--kind", "character", "-"] + purpose,
                                   stdin: "Relationship: mother\n\nVisits on Sundays.\n")
        let listed = try WritingCommandTests.ok(vault, ["project", "list", "--json"])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])?.first?["id"] as? String)
        let before = try Self.actions(vault)
        let commands = Self.commands(id, root: vault.root)
        for command in commands {
            let result = try vault.run(command, stdin: "Reports sleeping well.\n")
            let named = command.joined(separator: " ")
            #expect(result.status == 77, "\(named): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("--purpose"), "\(named): the refusal says how to read it: \(result.stderr)")
            for word in ["sleeping", "accident", "Sundays"] {
                #expect(!result.stdout.contains(word) && !result.stderr.contains(word), "\(named) let '\(word)' out")
            }
        }
        // Nothing was read into a file, written into the store, or recorded but the runs' unlocks.
        #expect(!FileManager.default.fileExists(atPath: vault.root + "/chart.md"))
        let added = Array(try Self.actions(vault).dropFirst(before.count))
        #expect(added.count == commands.count + 1 && added.allSatisfy { $0 == "vault.unlock" }, "\(Set(added))")
        #expect(try WritingCommandTests.ok(vault, ["doc", "show", "Intake", "Session 1"] + purpose) == Self.note + "\n")
        let branches = try WritingCommandTests.ok(vault, ["branch", "list", "Intake", "Session 1", "--json"] + purpose)
        #expect((try JSONSerialization.jsonObject(with: Data(branches.utf8)) as? [Any])?.count == 1, "\(branches)")
    }
}
