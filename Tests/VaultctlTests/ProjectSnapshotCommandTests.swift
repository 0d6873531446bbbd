import Foundation
import Testing
import TestSupport

/// vaultctl project snapshot, versions and restore: a whole project's versions (SECURITY.md §15.2).
@Suite("vaultctl project snapshot, versions, restore", .serialized)
struct ProjectSnapshotCommandTests {
    @Test("a project version restores every document and title at once, as a version of its own, audited")
    func snapshotAndRestore() throws {
        let vault = try CLIVault()
        let ok = { (arguments: [String], stdin: String?) in try WritingCommandTests.ok(vault, arguments, stdin: stdin) }
        try ok(["project", "create", "Harbour", "--register", "fiction"], nil)
        try ok(["doc", "add", "Harbour", "Arrival"], nil)
        try ok(["doc", "add", "Harbour", "Storm"], nil)
        try ok(["doc", "write", "Harbour", "Arrival"], "The boat came in.\n")
        try ok(["doc", "write", "Harbour", "Storm"], "It rained.\n")
        #expect(try ok(["project", "snapshot", "Harbour", "--title", "Draft one"], nil).hasPrefix("Manuscript version 1: "), "a fiction project is a manuscript")
        try ok(["doc", "write", "Harbour", "Arrival"], "Nothing came.\n")
        try ok(["doc", "write", "Harbour", "Storm"], "Dry.\n")
        #expect(try ok(["project", "restore", "Harbour", "1"], nil).contains("(2 scenes changed)"))
        #expect(try ok(["doc", "show", "Harbour", "Arrival"], nil) == "The boat came in.\n")
        #expect(try ok(["doc", "show", "Harbour", "Storm"], nil) == "It rained.\n")
        let versions = try ok(["project", "versions", "Harbour"], nil)
        #expect(versions.hasPrefix("3 manuscript versions\n") && versions.contains("titled   Draft one") && versions.contains("restore"), "\(versions)")
        let missing = try vault.run(["project", "restore", "Harbour", "9"])
        #expect(missing.status == 66 && missing.stderr.contains("no manuscript version '9'"), "\(missing.status) \(missing.stderr)")
        #expect(try ok(["audit", "log", "--json"], nil).contains("writing.project-snapshot-restore"))
    }
}
