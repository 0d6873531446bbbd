import Foundation
import Testing
import TestSupport

/// vaultctl search PROJECT QUERY: finds the documents that hold the query's terms, says so in the
/// register's words, refuses a bad query (64) and a privileged project without --purpose (77), and
/// records the search without its query.
@Suite("vaultctl search", .serialized)
struct SearchCommandTests {
    @Test("search finds the documents holding every term, with snippets; --json gives each block; a bad query exits 64 with the reason")
    func findsDocuments() throws {
        let vault = try CLIVault()
        let ok = { (arguments: [String], stdin: String?) in try WritingCommandTests.ok(vault, arguments, stdin: stdin) }
        try ok(["project", "create", "Harbour", "--register", "fiction"], nil)
        try ok(["doc", "add", "Harbour", "Arrival"], nil)
        try ok(["doc", "add", "Harbour", "Departure"], nil)
        try ok(["doc", "write", "Harbour", "Arrival"], "# Arrival\n\nThe grey boat came into the harbour.\n")
        try ok(["doc", "write", "Harbour", "Departure"], "The boat left before dawn.\n")
        let text = try ok(["search", "Harbour", "boat harb*"], nil)
        #expect(text.hasPrefix("1 scene found\n") && text.contains("Arrival") && text.contains("The grey boat came into the harbour."), "\(text)")
        #expect(!text.contains("Departure"), "\(text)")
        let parsed = try JSONSerialization.jsonObject(with: Data(try ok(["search", "Harbour", "BOAT", "--json"], nil).utf8))
        let documents = try #require(parsed as? [[String: Any]])
        #expect(documents.map { $0["title"] as? String } == ["Arrival", "Departure"], "\(documents)")
        let blocks = try #require(documents.first?["blocks"] as? [[String: Any]])
        #expect(blocks.count == 1 && blocks[0]["kind"] as? String == "paragraph" && blocks[0]["matches"] as? Int == 1, "\(blocks)")
        #expect(try ok(["search", "Harbour", "\"boat grey\""], nil).hasPrefix("0 scenes found"))
        let bad = try vault.run(["search", "Harbour", "\"grey boat"])
        #expect(bad.status == 64 && bad.stderr.contains("never closed") && bad.stdout.isEmpty, "\(bad.status) \(bad.stderr)")
    }

    @Test("a privileged project is searched only with --purpose (77 without); the query appears in no audit detail")
    func privilegedAndAudited() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "prepare the review"]
        let secret = "Zolpidemquery"
        try WritingCommandTests.intake(vault, purpose: purpose, text: "S: asks about \(secret) again\n")
        let refused = try vault.run(["search", "Intake", secret.lowercased()])
        #expect(refused.status == 77 && refused.stdout.isEmpty, "\(refused.status) \(refused.stderr)")
        let found = try WritingCommandTests.ok(vault, ["search", "Intake", secret.lowercased()] + purpose)
        #expect(found.hasPrefix("1 note found\n"), "\(found)")
        #expect(found.contains(secret), "\(found)")
        let log = try WritingCommandTests.ok(vault, ["audit", "log", "--details", "--json"] + purpose)
        #expect(log.contains("writing.search") && log.contains("\"hits\""), "\(log)")
        #expect(!log.lowercased().contains(secret.lowercased()), "the query is in no audit detail")
    }
}
