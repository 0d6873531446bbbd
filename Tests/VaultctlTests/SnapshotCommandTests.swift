import Foundation
import Testing
import TestSupport

/// vaultctl snapshot create|list|show|diff|restore and history: versions stored, printed back as they
/// were, restored byte for byte and recorded; a privileged project's only with --purpose.
@Suite("vaultctl snapshot and history", .serialized)
struct SnapshotCommandTests {
    @Test("create, list, show, restore and history over a document's versions; the restore is in the audit log")
    func versions() throws {
        let vault = try CLIVault()
        let ok = { (arguments: [String], stdin: String?) in try WritingCommandTests.ok(vault, arguments, stdin: stdin) }
        try ok(["project", "create", "Harbour", "--register", "fiction"], nil)
        try ok(["doc", "add", "Harbour", "Arrival"], nil)
        let first = "# Arrival\n\nThe boat came in.\n"
        try ok(["doc", "write", "Harbour", "Arrival"], first)
        #expect(try ok(["snapshot", "create", "Harbour", "Arrival", "--title", "Draft one"], nil).hasPrefix("Version 1 of Arrival: "))
        try ok(["doc", "write", "Harbour", "Arrival"], "# Arrival\n\nThe boat came in late and grey.\n")
        try ok(["snapshot", "create", "Harbour", "Arrival"], nil)
        let listing = try ok(["snapshot", "list", "Harbour", "Arrival"], nil)
        #expect(listing.hasPrefix("2 version(s) of Arrival\n") && listing.contains("titled   Draft one") && listing.contains("automatic"), "\(listing)")
        #expect(try ok(["snapshot", "show", "Harbour", "Arrival", "1"], nil) == first)
        #expect(try ok(["snapshot", "restore", "Harbour", "Arrival", "1"], nil).contains("stored as version 3"))
        #expect(try ok(["doc", "show", "Harbour", "Arrival"], nil) == first)
        let history = try #require(try JSONSerialization.jsonObject(with: Data(try ok(["history", "Harbour", "Arrival", "--json"], nil).utf8))
                                   as? [[String: Any]])
        #expect(history.map { $0["origin"] as? String } == ["titled", "automatic", "restore"])
        // "# Arrival" is one word: the heading's mark is not counted, nor the full stop.
        #expect(history.map { $0["words_added"] as? Int } == [5, 3, 0] && history.map { $0["words_removed"] as? Int } == [0, 0, 3], "\(history)")
        let missing = try vault.run(["snapshot", "show", "Harbour", "Arrival", "9"])
        #expect(missing.status == 66 && missing.stderr.contains("no version '9'"), "\(missing.status) \(missing.stderr)")
        let log = try ok(["audit", "log", "--json"], nil)
        #expect(log.contains("writing.snapshot-create") && log.contains("writing.snapshot-restore"))
    }

    @Test("a privileged project's versions are read only with --purpose (77 without); another document's snapshot id is refused (64)")
    func privilegedAndForeign() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "write up the session"]
        try WritingCommandTests.ok(vault, ["project", "create", "Intake", "--register", "healthcare"])
        try WritingCommandTests.ok(vault, ["doc", "add", "Intake", "Session 1"] + purpose)
        try WritingCommandTests.ok(vault, ["doc", "add", "Intake", "Session 2"] + purpose)
        try WritingCommandTests.ok(vault, ["doc", "write", "Intake", "Session 1"] + purpose, stdin: "S: slept badly\n")
        let made = try WritingCommandTests.ok(vault, ["snapshot", "create", "Intake", "Session 1", "--json"] + purpose)
        let id = try #require((try JSONSerialization.jsonObject(with: Data(made.utf8)) as? [String: Any])?["id"] as? String)
        #expect(try vault.run(["snapshot", "list", "Intake", "Session 1"]).status == 77)
        let foreign = try vault.run(["snapshot", "show", "Intake", "Session 2", id] + purpose)
        #expect(foreign.status == 64 && foreign.stderr.contains("belongs to another note"), "\(foreign.status) \(foreign.stderr)")
    }

    @Test("snapshot diff: two versions word by word, or a version against the current text; a privileged one only with --purpose")
    func diff() throws {
        let vault = try CLIVault()
        let ok = { (arguments: [String], stdin: String?) in try WritingCommandTests.ok(vault, arguments, stdin: stdin) }
        try ok(["project", "create", "Harbour", "--register", "fiction"], nil)
        try ok(["doc", "add", "Harbour", "Arrival"], nil)
        try ok(["doc", "write", "Harbour", "Arrival"], "The boat came in.\n")
        try ok(["snapshot", "create", "Harbour", "Arrival"], nil)
        try ok(["doc", "write", "Harbour", "Arrival"], "The grey boat came in late.\n")
        try ok(["snapshot", "create", "Harbour", "Arrival"], nil)
        try ok(["doc", "write", "Harbour", "Arrival"], "The grey boat sank.\n")
        #expect(try ok(["snapshot", "diff", "Harbour", "Arrival", "1", "2"], nil) == "The {+grey +}boat came in{+ late+}.\n")
        #expect(try ok(["snapshot", "diff", "Harbour", "Arrival", "2"], nil) == "The grey boat [-came in late-]{+sank+}.\n",
                "without TO, against the current text")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try ok(["snapshot", "diff", "Harbour", "Arrival", "1", "--json"], nil).utf8))
                                as? [String: Any])
        #expect(json["to"] as? String == "current" && (json["from"] as? [String: Any])?["number"] as? Int == 1)
        let runs = try #require(json["runs"] as? [[String: Any]])
        #expect(runs.map { $0["kind"] as? String ?? "" }.contains("insert") && runs.map { $0["kind"] as? String ?? "" }.contains("delete"), "\(runs)")
        let missing = try vault.run(["snapshot", "diff", "Harbour", "Arrival", "1", "7"])
        #expect(missing.status == 66 && missing.stderr.contains("no version '7'"), "\(missing.status) \(missing.stderr)")
        let purpose = ["--purpose", "write up the session"]
        try WritingCommandTests.intake(vault, purpose: purpose, text: "S: slept badly\n")
        try ok(["snapshot", "create", "Intake", "Session 1"] + purpose, nil)
        try ok(["doc", "write", "Intake", "Session 1"] + purpose, "S: slept well\n")
        #expect(try vault.run(["snapshot", "diff", "Intake", "Session 1", "1"]).status == 77)
        #expect(try ok(["snapshot", "diff", "Intake", "Session 1", "1"] + purpose, nil) == "S: slept [-badly-]{+well+}\n")
    }
}
