import Foundation
import Testing
import TestSupport

/// vaultctl branch create|list|show|diff|adopt|discard|revert: a proposal made from standard input,
/// shown against its base, adopted and reverted byte for byte, discarded but kept, recorded; a
/// privileged project's only with --purpose; a conflict refused with nothing changed.
@Suite("vaultctl branch", .serialized)
struct BranchCommandTests {
    @Test("create from stdin, list, show, diff, adopt, revert (byte-identical) and discard; each in the audit log")
    func lifecycle() throws {
        let vault = try CLIVault()
        let ok = { (arguments: [String], stdin: String?) in try WritingCommandTests.ok(vault, arguments, stdin: stdin) }
        try ok(["project", "create", "Harbour", "--register", "fiction"], nil)
        try ok(["doc", "add", "Harbour", "Arrival"], nil)
        let first = "# Arrival\n\nThe boat came in.\n"
        let proposed = "# Arrival\n\nThe boat came in late.\n"
        try ok(["doc", "write", "Harbour", "Arrival"], first)
        #expect(try ok(["branch", "create", "Harbour", "Arrival", "--by", "editor"], proposed).hasPrefix("Branch 1 of Arrival: "))
        #expect(try ok(["branch", "create", "Harbour", "Arrival", "--kind", "ai-suggestion"], "# Arrival\n\nA boat.\n").hasPrefix("Branch 2"))
        let listing = try ok(["branch", "list", "Harbour", "Arrival"], nil)
        #expect(listing.hasPrefix("2 branches of Arrival\n") && listing.contains("manual") && listing.contains("open") && listing.contains("editor"), "\(listing)")
        #expect(try ok(["branch", "show", "Harbour", "Arrival", "1"], nil) == proposed)
        let diff = try ok(["branch", "diff", "Harbour", "Arrival", "1"], nil)
        #expect(diff.contains("in{+ late+}.") && !diff.contains("[-"), "\(diff)")
        #expect(try ok(["doc", "show", "Harbour", "Arrival"], nil) == first, "a proposal does not touch the document")
        #expect(try ok(["branch", "adopt", "Harbour", "Arrival", "1"], nil).contains("is adopted; stored as version"))
        #expect(try ok(["doc", "show", "Harbour", "Arrival"], nil) == proposed)
        #expect(try ok(["branch", "revert", "Harbour", "Arrival", "1"], nil).contains("is reverted"))
        #expect(try ok(["doc", "show", "Harbour", "Arrival"], nil) == first)
        #expect(try ok(["branch", "discard", "Harbour", "Arrival", "2"], nil).contains("is discarded; stored as version"))
        #expect(try ok(["doc", "show", "Harbour", "Arrival"], nil) == first, "a discard does not touch the text")
        let again = try vault.run(["branch", "adopt", "Harbour", "Arrival", "2"])
        #expect(again.status == 64 && again.stderr.contains("is discarded, not open"), "\(again.status) \(again.stderr)")
        let missing = try vault.run(["branch", "show", "Harbour", "Arrival", "9"])
        #expect(missing.status == 66 && missing.stderr.contains("no branch '9'"), "\(missing.status) \(missing.stderr)")
        let log = try ok(["audit", "log", "--json"], nil)
        for action in ["writing.branch-create", "writing.branch-adopt", "writing.branch-revert", "writing.branch-discard"] {
            #expect(log.contains(action), "\(action)")
        }
    }

    @Test("an overlapping change is refused (exit 1) naming the blocks, and the document is unchanged")
    func conflictIsRefused() throws {
        let vault = try CLIVault()
        try WritingCommandTests.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        try WritingCommandTests.ok(vault, ["doc", "add", "Harbour", "Arrival"])
        try WritingCommandTests.ok(vault, ["doc", "write", "Harbour", "Arrival"], stdin: "The boat came in.\n")
        try WritingCommandTests.ok(vault, ["branch", "create", "Harbour", "Arrival"], stdin: "The boat came in late.\n")
        try WritingCommandTests.ok(vault, ["doc", "write", "Harbour", "Arrival"], stdin: "The ship came in.\n")
        let refused = try vault.run(["branch", "adopt", "Harbour", "Arrival", "1"])
        #expect(refused.status == 1 && refused.stderr.contains("both changed the same place") && refused.stderr.contains("scene block 1"),
                "\(refused.status) \(refused.stderr)")
        #expect(try WritingCommandTests.ok(vault, ["doc", "show", "Harbour", "Arrival"]) == "The ship came in.\n")
    }

    @Test("an overlap adopt refuses is shown: both sides' words against the base, in text and --json; a privileged one only in a session")
    func conflictIsShown() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "settle the plan"]
        try WritingCommandTests.ok(vault, ["project", "create", "Clinic", "--register", "healthcare"])
        try WritingCommandTests.ok(vault, ["doc", "add", "Clinic", "Plan"] + purpose)
        try WritingCommandTests.ok(vault, ["doc", "write", "Clinic", "Plan"] + purpose, stdin: "Walk daily.\n\nSleep diary.\n")
        try WritingCommandTests.ok(vault, ["branch", "create", "Clinic", "Plan"] + purpose, stdin: "Walk daily at noon.\n\nSleep diary.\n")
        try WritingCommandTests.ok(vault, ["doc", "write", "Clinic", "Plan"] + purpose, stdin: "Walk twice daily.\n\nSleep diary.\n")

        let refused = try vault.run(["branch", "adopt", "Clinic", "Plan", "1"] + purpose)
        #expect(refused.status == 1 && refused.stderr.contains("both changed the same place"), "\(refused.status) \(refused.stderr)")
        let lines = refused.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Overlap 1 of 1: the note's block 1 against the suggested change's block 1") == true, "\(refused.stdout)")
        // Each side's words, marked against the base as 'branch diff' marks them; the other block is not an overlap.
        #expect(lines.contains("  The note now:") && lines.contains("    Walk {+twice +}daily.") || lines.contains("    Walk{+ twice+} daily."),
                "\(refused.stdout)")
        #expect(lines.contains("  The suggested change:") && lines.contains("    Walk daily{+ at noon+}."), "\(refused.stdout)")
        #expect(!refused.stdout.contains("Sleep diary"), "\(refused.stdout)")

        let json = try vault.run(["branch", "adopt", "Clinic", "Plan", "1", "--json"] + purpose)
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let conflict = try #require((object["conflicts"] as? [[String: Any]])?.first, "\(json.stdout)")
        #expect((conflict["base"] as? [String: Any])?["text"] as? String == "Walk daily.\n")
        #expect((conflict["document"] as? [String: Any])?["text"] as? String == "Walk twice daily.\n")
        #expect((conflict["proposal"] as? [String: Any])?["text"] as? String == "Walk daily at noon.\n")
        #expect((conflict["proposal"] as? [String: Any])?["first_block"] as? Int == 1)
        let runs = try #require((conflict["proposal"] as? [String: Any])?["runs"] as? [[String: Any]])
        #expect(runs.contains { $0["kind"] as? String == "insert" && ($0["text"] as? String)?.contains("at noon") == true }, "\(runs)")

        // Without a session nothing is read, so nothing is shown: the refusal is the session's.
        let outside = try vault.run(["branch", "adopt", "Clinic", "Plan", "1"])
        #expect(outside.status == 77 && outside.stdout.isEmpty && !outside.stderr.contains("Walk"), "\(outside.status) \(outside.stdout) \(outside.stderr)")
        #expect(try WritingCommandTests.ok(vault, ["doc", "show", "Clinic", "Plan"] + purpose) == "Walk twice daily.\n\nSleep diary.\n")
    }

    @Test("a revert refused for an edit since the adoption shows the overlap: the note now and before the adoption, each against the adopted version; --json too")
    func revertConflictIsShown() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "settle the plan"]
        try WritingCommandTests.ok(vault, ["project", "create", "Clinic", "--register", "healthcare"])
        try WritingCommandTests.ok(vault, ["doc", "add", "Clinic", "Plan"] + purpose)
        try WritingCommandTests.ok(vault, ["doc", "write", "Clinic", "Plan"] + purpose, stdin: "Walk daily.\n\nSleep diary.\n")
        try WritingCommandTests.ok(vault, ["branch", "create", "Clinic", "Plan"] + purpose, stdin: "Walk daily at noon.\n\nSleep diary.\n")
        try WritingCommandTests.ok(vault, ["branch", "adopt", "Clinic", "Plan", "1"] + purpose)
        let edited = "Walk daily at noon with a friend.\n\nSleep diary.\n"
        try WritingCommandTests.ok(vault, ["doc", "write", "Clinic", "Plan"] + purpose, stdin: edited)

        let refused = try vault.run(["branch", "revert", "Clinic", "Plan", "1"] + purpose)
        #expect(refused.status == 1 && refused.stderr.contains("the note was edited since the adoption where the adoption changed it")
                    && refused.stderr.contains("against block 1 (") && refused.stderr.contains(") before the adoption"), "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("hint: edit the note by hand"), "a revert's hint, not an adoption's: \(refused.stderr)")
        let lines = refused.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Overlap 1 of 1: the note's block 1 against block 1 from before the suggested change was adopted") == true,
                "\(refused.stdout)")
        // Each side's words against the adopted version: the note added words, the revert would take words out.
        let note = try #require(lines.firstIndex(of: "  The note now:"), "\(refused.stdout)")
        let before = try #require(lines.firstIndex(of: "  Before the adoption:"), "\(refused.stdout)")
        #expect(lines[note + 1].contains("{+") && lines[note + 1].contains("friend"), "\(refused.stdout)")
        #expect(lines[before + 1].contains("[-") && lines[before + 1].contains("noon"), "\(refused.stdout)")
        #expect(!refused.stdout.contains("Sleep diary"), "\(refused.stdout)")

        let json = try vault.run(["branch", "revert", "Clinic", "Plan", "1", "--json"] + purpose)
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let conflict = try #require((object["conflicts"] as? [[String: Any]])?.first, "\(json.stdout)")
        #expect((conflict["base"] as? [String: Any])?["text"] as? String == "Walk daily at noon.\n")
        #expect((conflict["document"] as? [String: Any])?["text"] as? String == "Walk daily at noon with a friend.\n")
        #expect((conflict["before_adoption"] as? [String: Any])?["text"] as? String == "Walk daily.\n")
        #expect((conflict["before_adoption"] as? [String: Any])?["first_block"] as? Int == 1)
        #expect(try WritingCommandTests.ok(vault, ["doc", "show", "Clinic", "Plan"] + purpose) == edited, "nothing was changed")
    }

    @Test("a privileged project's branches are made and read only with --purpose (77 without)")
    func privileged() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "write up the session"]
        try WritingCommandTests.intake(vault, purpose: purpose, text: "S: slept badly\n")
        #expect(try vault.run(["branch", "create", "Intake", "Session 1"], stdin: "S: slept well\n").status == 77)
        try WritingCommandTests.ok(vault, ["branch", "create", "Intake", "Session 1"] + purpose, stdin: "S: slept well\n")
        #expect(try vault.run(["branch", "list", "Intake", "Session 1"]).status == 77)
        #expect(try WritingCommandTests.ok(vault, ["branch", "show", "Intake", "Session 1", "1"] + purpose) == "S: slept well\n")
    }
}
