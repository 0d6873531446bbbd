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
        let object = try #require(parsed as? [String: Any])
        let documents = try #require(object["documents"] as? [[String: Any]])
        #expect(object["found"] as? Int == 2 && documents.map { $0["title"] as? String } == ["Arrival", "Departure"], "\(object)")
        let blocks = try #require(documents.first?["blocks"] as? [[String: Any]])
        #expect(blocks.count == 1 && blocks[0]["kind"] as? String == "paragraph" && blocks[0]["matches"] as? Int == 1, "\(blocks)")
        #expect(documents.first?["matched_blocks"] as? Int == 1, "\(documents)")
        #expect(try ok(["search", "Harbour", "\"boat grey\""], nil).hasPrefix("0 scenes found"))
        let bad = try vault.run(["search", "Harbour", "\"grey boat"])
        #expect(bad.status == 64 && bad.stderr.contains("never closed") && bad.stdout.isEmpty, "\(bad.status) \(bad.stderr)")
    }

    @Test("a search matching more documents than --limit lists the first ones and says how many were found; a document shows three blocks and counts the rest")
    func boundedListing() throws {
        let vault = try CLIVault()
        let ok = { (arguments: [String], stdin: String?) in try WritingCommandTests.ok(vault, arguments, stdin: stdin) }
        try ok(["project", "create", "Harbour", "--register", "fiction"], nil)
        for title in ["One", "Two", "Three"] {
            try ok(["doc", "add", "Harbour", title], nil)
            try ok(["doc", "write", "Harbour", title], (1...5).map { "Grey water \($0) of \(title)." }.joined(separator: "\n\n") + "\n")
        }
        let text = try ok(["search", "Harbour", "grey", "--limit", "2"], nil)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "3 scenes found, the first 2 shown (--limit N shows more)", "\(text)")
        #expect(text.contains("One") && text.contains("Two") && !text.contains("Three"), "\(text)")
        #expect(lines.filter { $0.hasPrefix("    paragraph") }.count == 6 && lines.filter { $0 == "    … and 2 more blocks" }.count == 2, "\(text)")
        #expect(try ok(["search", "Harbour", "grey"], nil).hasPrefix("3 scenes found\n"), "all shown: no note")
        let bad = try vault.run(["search", "Harbour", "grey", "--limit", "0"])
        #expect(bad.status == 64 && bad.stderr.contains("--limit must be a whole number"), "\(bad.status) \(bad.stderr)")
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
