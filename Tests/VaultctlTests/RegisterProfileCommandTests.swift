import Foundation
import Testing
import TestSupport

/// A register's citation style and theme colour from the command line (issue 15: "works from the
/// CLI"), in `lexicon` and `project show`, text and --json.
@Suite("vaultctl lexicon and project show: citation style and theme colour", .serialized)
struct RegisterProfileCommandTests {
    @Test("lexicon prints each register's citation style and theme colour; --json gives them too")
    func lexicon() throws {
        let vault = try CLIVault()
        let legal = try WritingCommandTests.ok(vault, ["lexicon", "--register", "legal"], unlock: false)
        #expect(legal.contains("\n  citation   Bluebook\n  theme      #1E3A8A\n  privacy    privileged by default\n"), "\(legal)")
        let all = try WritingCommandTests.ok(vault, ["lexicon", "--json"], unlock: false)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(all.utf8)) as? [[String: Any]])
        let byRegister = Dictionary(uniqueKeysWithValues: rows.map { ($0["register"] as? String ?? "", $0) })
        #expect(byRegister["healthcare"]?["citation"] as? String == "ama" && byRegister["healthcare"]?["theme"] as? String == "#0F766E")
        #expect(byRegister["screenwriting"]?["citation"] as? String == "none" && byRegister["fiction"]?["citation_name"] as? String == "Chicago")
        #expect(rows.count == 10 && rows.allSatisfy { ($0["theme"] as? String)?.count == 7 })
    }

    @Test("project show prints its register's citation style and theme colour; --json gives them too")
    func projectShow() throws {
        let vault = try CLIVault()
        try WritingCommandTests.ok(vault, ["project", "create", "Clinic", "--register", "healthcare", "--not-privileged"])
        let shown = try WritingCommandTests.ok(vault, ["project", "show", "Clinic"])
        #expect(shown.contains("\n  citation     AMA\n  theme        #0F766E\n"), "\(shown)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try WritingCommandTests.ok(vault, ["project", "show", "Clinic", "--json"]).utf8))
                                as? [String: Any])
        #expect(json["citation"] as? String == "ama" && json["theme"] as? String == "#0F766E", "\(json)")
        try WritingCommandTests.ok(vault, ["project", "register", "Clinic", "legal"])
        #expect(try WritingCommandTests.ok(vault, ["project", "show", "Clinic"]).contains("citation     Bluebook"), "a register change relabels the defaults too")
    }
}
