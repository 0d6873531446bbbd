import CryptoVault
import Foundation
import Testing
import TestSupport

/// Issue 15 review, PARTLY 6: PROJECT given by name with --purpose once started a session on every
/// privileged project to read its name and compare it, so one purpose ("write up Smith's session")
/// opened, recorded and read every other client's chart. A name is now compared with each project's
/// lookup hash (SECURITY.md §14.1): the session opens on the one project the name finds.
@Suite("PROJECT by name: --purpose opens only the project named", .serialized)
struct ProjectNameLookupCommandTests {
    static let purpose = ["--purpose", "write up Smith's session"]

    /// The audit log, oldest first: each entry's action and compartment name ('project ID').
    static func entries(_ vault: CLIVault) throws -> [(action: String, compartment: String?)] {
        let log = try WritingCommandTests.ok(vault, ["audit", "log", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]])
        return entries.map { ($0["action"] as? String ?? "", $0["compartment"] as? String) }
    }

    /// A healthcare project (privileged by its register) named `name`; its id.
    static func chart(_ vault: CLIVault, _ name: String) throws -> String {
        let created = try WritingCommandTests.ok(vault, ["project", "create", name, "--register", "healthcare", "--json"])
        return try #require((try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])?["id"] as? String)
    }

    /// Sessions started and records opened after the first `count` entries, by compartment name.
    static func opened(_ vault: CLIVault, after count: Int) throws -> [(action: String, compartment: String?)] {
        try Self.entries(vault).dropFirst(count).filter { ["session.start", "record.open"].contains($0.action) }
    }

    @Test("two privileged charts; doc add, write and show on one by name with --purpose: no session.start or record.open names the other's compartment")
    func purposeOpensOnlyTheNamedChart() throws {
        let vault = try CLIVault()
        let smith = try Self.chart(vault, "Smith, J.")
        let jones = try Self.chart(vault, "Jones, A.")
        let before = try Self.entries(vault).count
        try WritingCommandTests.ok(vault, ["doc", "add", "Smith, J.", "Session 1"] + Self.purpose)
        try WritingCommandTests.ok(vault, ["doc", "write", "Smith, J.", "Session 1"] + Self.purpose, stdin: "Slept badly.\n")
        #expect(try WritingCommandTests.ok(vault, ["doc", "show", "Smith, J.", "Session 1"] + Self.purpose) == "Slept badly.\n")
        let opened = try Self.opened(vault, after: before)
        #expect(!opened.contains { $0.compartment == "project \(jones)" }, "Jones's chart was opened: \(opened)")
        // The test can fail: Smith's chart was opened, in sessions recorded against its compartment.
        #expect(opened.filter { $0.action == "session.start" }.map(\.compartment) == Array(repeating: "project \(smith)", count: 3), "\(opened)")
        #expect(opened.contains { $0.action == "record.open" && $0.compartment == "project \(smith)" }, "\(opened)")
    }

    @Test("a name no project has is refused: exit 66, 'no project', and no session is started on either chart")
    func wrongNameIsRefused() throws {
        let vault = try CLIVault()
        _ = try Self.chart(vault, "Smith, J.")
        _ = try Self.chart(vault, "Jones, A.")
        let before = try Self.entries(vault).count
        let result = try vault.run(["doc", "list", "Smith"] + Self.purpose)
        #expect(result.status == 66, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("no project 'Smith'"), "\(result.stderr)")
        #expect(try Self.opened(vault, after: before).isEmpty)
    }

    @Test("a name two charts have is refused (exit 64, give the id) before any session starts")
    func sharedNameIsRefused() throws {
        let vault = try CLIVault()
        _ = try Self.chart(vault, "Intake")
        _ = try Self.chart(vault, "Intake")
        let before = try Self.entries(vault).count
        let result = try vault.run(["doc", "list", "Intake"] + Self.purpose)
        #expect(result.status == 64, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("2 projects are named 'Intake'") && result.stderr.contains("give the id"), "\(result.stderr)")
        #expect(try Self.opened(vault, after: before).isEmpty)
    }

    @Test("charts made before name lookups (no hash) are not opened to compare: exit 66 says to give the id or run project list --purpose once; after that list the name finds the chart")
    func chartWithoutHashIsNotOpened() throws {
        let vault = try CLIVault()
        let smith = try Self.chart(vault, "Smith, J.")
        _ = try Self.chart(vault, "Jones, A.")
        try WritingCommandTests.ok(vault, ["doc", "add", smith, "Session 1"] + Self.purpose)
        // As a vault upgraded to model-2 holds them: every row without its hash.
        let database = try Database(path: vault.directory + "/" + Vault.databaseName, create: false)
        try database.query("UPDATE writing_projects SET name_lookup = NULL")
        let before = try Self.entries(vault).count
        let refused = try vault.run(["doc", "list", "Smith, J."] + Self.purpose)
        #expect(refused.status == 66, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("2 privileged project(s)") && refused.stderr.contains("give the id")
                    && refused.stderr.contains("vaultctl project list --purpose"), "\(refused.stderr)")
        #expect(try Self.opened(vault, after: before).isEmpty, "a chart was opened to compare its name")
        #expect(try WritingCommandTests.ok(vault, ["doc", "list", smith] + Self.purpose).contains("Session 1"))
        // The list reads each name in a recorded session and keeps its hash; then the name alone finds it.
        try WritingCommandTests.ok(vault, ["project", "list", "--purpose", "find the chart"])
        let listed = try Self.entries(vault).count
        #expect(try WritingCommandTests.ok(vault, ["doc", "list", "Smith, J."] + Self.purpose).contains("Session 1"))
        let opened = try Self.opened(vault, after: listed)
        #expect(!opened.isEmpty && opened.allSatisfy { $0.compartment == "project \(smith)" }, "\(opened)")
    }

    @Test("a name one chart has by its hash and an older chart (no hash) may have too is refused (exit 64, give the id), no session starts; after project list --purpose both are seen: '2 projects are named'")
    func hashMatchBesideAnOlderChartIsRefused() throws {
        let vault = try CLIVault()
        let older = try Self.chart(vault, "Smith, J.")
        _ = try Self.chart(vault, "Smith, J.")
        // The older chart as an upgraded vault holds it: made before model-2, so without its hash.
        let database = try Database(path: vault.directory + "/" + Vault.databaseName, create: false)
        try database.query("UPDATE writing_projects SET name_lookup = NULL WHERE hex(id) = upper(?)", [.text(older)])
        let before = try Self.entries(vault).count
        let refused = try vault.run(["doc", "add", "Smith, J.", "Session 4"] + Self.purpose)
        #expect(refused.status == 64, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("1 privileged project(s) made before this version") && refused.stderr.contains("give the id")
                    && refused.stderr.contains("vaultctl project list --purpose"), "\(refused.stderr)")
        #expect(try Self.opened(vault, after: before).isEmpty, "a session started on a chart the name may not mean")
        try WritingCommandTests.ok(vault, ["project", "list", "--purpose", "find the chart"])
        let ambiguous = try vault.run(["doc", "add", "Smith, J.", "Session 4"] + Self.purpose)
        #expect(ambiguous.status == 64 && ambiguous.stderr.contains("2 projects are named 'Smith, J.'"), "\(ambiguous.status) \(ambiguous.stderr)")
    }
}
