import Foundation
import Testing
import TestSupport

/// vaultctl project, doc, template and lexicon: labels in the project's register, privileged
/// projects read only in a session, text written and shown back, hostile text refused.
@Suite("vaultctl project and doc", .serialized)
struct WritingCommandTests {
    /// Runs a command that must succeed and returns its stdout.
    @discardableResult
    static func ok(_ vault: CLIVault, _ arguments: [String], unlock: Bool = true, stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try vault.run(arguments, unlock: unlock, stdin: stdin)
        #expect(result.status == 0, "\(arguments.joined(separator: " ")): \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// A healthcare project "Intake" (privileged by its register) whose document "Session 1" holds
    /// `text`, written with `purpose` (a one-command session): the privileged fixture of the
    /// command tests.
    static func intake(_ vault: CLIVault, purpose: [String], text: String) throws {
        try ok(vault, ["project", "create", "Intake", "--register", "healthcare"])
        try ok(vault, ["doc", "add", "Intake", "Session 1"] + purpose)
        try ok(vault, ["doc", "write", "Intake", "Session 1"] + purpose, stdin: text)
    }

    @Test("a legal project's doc list says documents and sections; it is privileged, so it reads only with --purpose (77 without)")
    func legalProjectInItsWords() throws {
        let vault = try CLIVault()
        #expect(try Self.ok(vault, ["project", "create", "Smith v. Jones", "--register", "legal"]).contains("Created matter"))
        let project = try #require(try JSONSerialization.jsonObject(with: Data(try Self.ok(vault, ["project", "list", "--json"]).utf8))
                                   as? [[String: Any]]).first
        let id = try #require(project?["id"] as? String)
        #expect(project?["privileged"] as? Bool == true && project?["name"] is NSNull)
        let refused = try vault.run(["doc", "add", id, "Facts", "--folder"])
        #expect(refused.status == 77 && refused.stderr.contains("--purpose"), "\(refused.status) \(refused.stderr)")
        let purpose = ["--purpose", "prepare the hearing"]
        try Self.ok(vault, ["doc", "add", "Smith v. Jones", "Facts", "--folder"] + purpose)
        try Self.ok(vault, ["doc", "add", "Smith v. Jones", "Memo", "--in", "Facts"] + purpose)
        let listing = try Self.ok(vault, ["doc", "list", "Smith v. Jones"] + purpose)
        #expect(listing.hasPrefix("1 document, 1 section\n"), "\(listing)")
        #expect(listing.contains("section    Facts") && listing.contains("document     Memo"), "\(listing)")
        #expect(try vault.run(["doc", "list", id]).status == 77)
        let log = try Self.ok(vault, ["audit", "log", "--json"])
        #expect(log.contains("writing.node-add") && log.contains("session.start"), "the adds and the sessions are in the log")
    }

    @Test("doc write reads a file or stdin into blocks, doc show prints it back, and a one-paragraph edit reseals one block")
    func writeAndShow() throws {
        let vault = try CLIVault()
        try Self.ok(vault, ["project", "create", "Harbour", "--register", "fiction", "--kind", "long-form"])
        try Self.ok(vault, ["doc", "add", "Harbour", "One", "--folder"])
        try Self.ok(vault, ["doc", "add", "Harbour", "Arrival", "--in", "One"])
        let text = "# Arrival\n\nThe boat came in.\nIt rained.\n\n- rope\n- net\n\n> nobody waved\n"
        try vault.write(text, to: vault.root + "/arrival.txt")
        try Self.ok(vault, ["doc", "write", "Harbour", "Arrival", vault.root + "/arrival.txt"])
        #expect(try Self.ok(vault, ["doc", "show", "Harbour", "Arrival"]) == text)
        let edit = try Self.ok(vault, ["doc", "write", "Harbour", "Arrival", "--json"], stdin: text.replacingOccurrences(of: "came in", with: "came in late"))
        let change = try #require(try JSONSerialization.jsonObject(with: Data(edit.utf8)) as? [String: Any])
        #expect(change["sealed"] as? Int == 1 && change["kept"] as? Int == 4 && change["removed"] as? Int == 0, "\(change)")
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(try Self.ok(vault, ["doc", "show", "Harbour", "Arrival", "--json"]).utf8))
                                 as? [String: Any])
        #expect((shown["blocks"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["heading-1", "paragraph", "list-item", "list-item", "quote"])
        let listing = try Self.ok(vault, ["doc", "list", "Harbour"])
        #expect(listing.hasPrefix("1 scene, 1 chapter\n"), "\(listing)")
        // Another register relabels the same records.
        try Self.ok(vault, ["project", "register", "Harbour", "legal"])
        #expect(try Self.ok(vault, ["doc", "list", "Harbour"]).hasPrefix("1 document, 1 section\n"))
        #expect(try Self.ok(vault, ["doc", "show", "Harbour", "Arrival"]) == text.replacingOccurrences(of: "came in", with: "came in late"))
    }

    @Test("hostile text (invalid UTF-8, over 16 MiB) and a folder moved into itself are refused, and the document is unchanged")
    func hostileInput() throws {
        let vault = try CLIVault()
        try Self.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        try Self.ok(vault, ["doc", "add", "Harbour", "One", "--folder"])
        try Self.ok(vault, ["doc", "add", "Harbour", "Inner", "--folder", "--in", "One"])
        try Self.ok(vault, ["doc", "add", "Harbour", "Arrival"])
        try Self.ok(vault, ["doc", "write", "Harbour", "Arrival"], stdin: "Kept.\n")
        try Data([0x61, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: vault.root + "/bad.txt"))
        let bad = try vault.run(["doc", "write", "Harbour", "Arrival", vault.root + "/bad.txt"])
        #expect(bad.status == 65 && bad.stderr.contains("not valid UTF-8"), "\(bad.stderr)")
        try Data(repeating: 0x61, count: 17 << 20).write(to: URL(fileURLWithPath: vault.root + "/big.txt"))
        let big = try vault.run(["doc", "write", "Harbour", "Arrival", vault.root + "/big.txt"])
        #expect(big.status == 65 && big.stderr.contains("the most one text may hold"), "\(big.stderr)")
        let loop = try vault.run(["doc", "move", "Harbour", "One", "--in", "Inner"])
        #expect(loop.status == 64 && loop.stderr.contains("cannot move under itself"), "\(loop.stderr)")
        #expect(try Self.ok(vault, ["doc", "show", "Harbour", "Arrival"]) == "Kept.\n")
    }

    @Test("template use starts a document from a register's template; lexicon prints the register's words")
    func templatesAndLexicon() throws {
        let vault = try CLIVault()
        try Self.ok(vault, ["project", "create", "Intake notes", "--register", "healthcare", "--not-privileged"])
        try Self.ok(vault, ["template", "use", "Intake notes", "soap-note", "--title", "Session 4"])
        let note = try Self.ok(vault, ["doc", "show", "Intake notes", "Session 4"])
        #expect(note.contains("Subjective") && note.contains("Plan"), "\(note)")
        #expect(try Self.ok(vault, ["template", "list", "--register", "healthcare"], unlock: false).contains("soap-note"))
        let words = try Self.ok(vault, ["lexicon", "--register", "healthcare"], unlock: false)
        #expect(words.contains("scene      note / notes") && words.contains("place      hidden"), "\(words)")
    }

    @Test("with the daemon serving, a privileged project is read through the daemon's session of its compartment, and refused (77) before one starts")
    func privilegedProjectThroughTheDaemonsSession() throws {
        let fixture = try DaemonCommandTests.Fixture()
        _ = try fixture.serve()
        let created = try fixture.client(["project", "create", "Intake notes", "--register", "healthcare", "--json"])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String,
                              "\(created.stderr)")
        let refused = try fixture.client(["doc", "add", id, "Session 1"])
        #expect(refused.status == 77 && refused.stderr.contains("privileged"), "\(refused.status) \(refused.stderr)")
        let session = try fixture.client(["session", "start", "--compartment", "project \(id)", "--purpose", "write up the session"])
        #expect(session.status == 0, "\(session.stderr)")
        #expect(try fixture.client(["doc", "add", "Intake notes", "Session 1"]).status == 0)
        let written = try CLI.run(["doc", "write", "Intake notes", "Session 1", "--vault", fixture.cli.directory], stdin: "S: slept badly.\n")
        #expect(written.status == 0, "\(written.stderr)")
        let listing = try fixture.client(["doc", "list", "Intake notes"])
        #expect(listing.status == 0 && listing.stdout.hasPrefix("1 note, 0 folders\n") && listing.stdout.contains("Session 1"),
                "\(listing.stdout) \(listing.stderr)")
        #expect(try fixture.client(["doc", "show", id, "Session 1"]).stdout == "S: slept badly.\n")
        #expect(try fixture.client(["project", "list"]).stdout.contains("Intake notes"))
    }
}
