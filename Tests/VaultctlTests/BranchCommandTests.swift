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
