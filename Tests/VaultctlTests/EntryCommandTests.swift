import Foundation
import Testing
import TestSupport

/// vaultctl entry add|list|show|rm and snippet list|insert: a project's characters, places, plot
/// beats and snippets in its register's words and field labels; what the register hides is neither
/// shown nor read; the register's snippets put into a document.
@Suite("vaultctl entry and snippet", .serialized)
struct EntryCommandTests {
    @Test("a legal matter's parties: added with party type and identification from stdin, listed and shown in its words, removed")
    func legalParties() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "prepare the hearing"]
        let ok = { (arguments: [String], stdin: String?) in try WritingCommandTests.ok(vault, arguments + purpose, stdin: stdin) }
        try WritingCommandTests.ok(vault, ["project", "create", "Smith v. Jones", "--register", "legal"])
        let text = "Party type: Plaintiff\nIdentification: passport X123\n\nRepresented by counsel.\nSecond line.\n"
        #expect(try ok(["entry", "add", "Smith v. Jones", "Jane Smith", "--kind", "party", "-"], text).hasPrefix("Added party "))
        try ok(["entry", "add", "Smith v. Jones", "Duty of care", "--kind", "issues"], nil)
        #expect(try ok(["entry", "show", "Smith v. Jones", "Jane Smith"], nil) == "Party: Jane Smith\n" + text)
        let listing = try ok(["entry", "list", "Smith v. Jones"], nil)
        #expect(listing.hasPrefix("1 party, 0 venues, 1 issue, 0 snippets\n") && listing.contains("party            Jane Smith"), "\(listing)")
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(try ok(["entry", "show", "Smith v. Jones", "Jane Smith", "--json"], nil).utf8))
                                 as? [String: Any])
        #expect((shown["fields"] as? [[String: String]])?.map { [$0["label"], $0["value"]] } == [["Party type", "Plaintiff"], ["Identification", "passport X123"]])
        #expect(shown["kind"] as? String == "character" && shown["label"] as? String == "party" && shown["body"] as? String == "Represented by counsel.\nSecond line.")
        // Without a session the privileged matter's entries are not read.
        #expect(try vault.run(["entry", "list", "Smith v. Jones"]).status == 77)
        #expect(try ok(["entry", "rm", "Smith v. Jones", "Jane Smith", "--yes"], nil).hasPrefix("Removed party "))
        #expect(try ok(["entry", "list", "Smith v. Jones", "--kind", "party"], nil) == "0 parties\n")
        let log = try WritingCommandTests.ok(vault, ["audit", "log", "--json"])
        #expect(log.contains("writing.entry-add") && log.contains("writing.entry-rm") && !log.contains("passport"))
    }

    @Test("a clinical person shows relationship and background; a kind or field the register hides is refused or not read as one")
    func clinicalPeople() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "write up the session"]
        try WritingCommandTests.ok(vault, ["project", "create", "Intake", "--register", "healthcare"])
        let text = "Relationship: mother\nBackground: lives nearby\nRole: carer\n"
        try WritingCommandTests.ok(vault, ["entry", "add", "Intake", "Ann", "--kind", "person", "-"] + purpose, stdin: text)
        let shown = try WritingCommandTests.ok(vault, ["entry", "show", "Intake", "Ann"] + purpose)
        // Role is hidden in a clinical register: that line is the body's, not a field.
        #expect(shown == "Person: Ann\nRelationship: mother\nBackground: lives nearby\n\nRole: carer\n", "\(shown)")
        let place = try vault.run(["entry", "add", "Intake", "Clinic", "--kind", "place"] + purpose)
        #expect(place.status == 64 && place.stderr.contains("hides them") && place.stderr.contains("person"), "\(place.status) \(place.stderr)")
        let unknown = try vault.run(["entry", "add", "Intake", "X", "--kind", "villain"] + purpose)
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown kind"), "\(unknown.stderr)")
        let twice = try vault.run(["entry", "add", "Intake", "Bo", "--kind", "person", "-"] + purpose, stdin: "Relationship: a\nRelationship: b\n")
        #expect(twice.status != 0 && twice.stderr.contains("given twice") && !twice.stderr.contains(": a"), "\(twice.stderr)")
    }

    @Test("snippet list shows the register's library; snippet insert puts one into a document at the end or before block N")
    func snippets() throws {
        let vault = try CLIVault()
        let ok = { (arguments: [String], stdin: String?) in try WritingCommandTests.ok(vault, arguments, stdin: stdin) }
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(try WritingCommandTests.ok(vault, ["snippet", "list", "--register", "fiction", "--json"], unlock: false).utf8))
                                  as? [[String: Any]])
        #expect(listed.contains { $0["id"] as? String == "scene-break" })
        try ok(["project", "create", "Harbour", "--register", "fiction"], nil)
        try ok(["doc", "add", "Harbour", "Arrival"], nil)
        try ok(["doc", "write", "Harbour", "Arrival"], "First.\n\nSecond.\n")
        #expect(try ok(["snippet", "insert", "Harbour", "Arrival", "scene-break", "--at", "2"], nil).contains("1 block(s)"))
        try ok(["snippet", "insert", "Harbour", "Arrival", "chapter-epigraph"], nil)
        #expect(try ok(["doc", "show", "Harbour", "Arrival"], nil) == "First.\n\n* * *\n\nSecond.\n\n> Epigraph text.\n\n— Source\n")
        let missing = try vault.run(["snippet", "insert", "Harbour", "Arrival", "no-such-snippet"])
        #expect(missing.status == 66 && missing.stderr.contains("no snippet"), "\(missing.status) \(missing.stderr)")
    }
}
