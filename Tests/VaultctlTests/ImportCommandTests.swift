import Foundation
import Testing
import TestSupport

/// vaultctl doc import: a Markdown or text file becomes a new document in one audited transaction;
/// a hostile file is refused for its reason with nothing added; a privileged project imports only in a session.
@Suite("vaultctl doc import", .serialized)
struct ImportCommandTests {
    static func ok(_ vault: CLIVault, _ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try WritingCommandTests.ok(vault, arguments, stdin: stdin, sourceLocation: sourceLocation)
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    static func auditActions(_ vault: CLIVault) throws -> [String] {
        let log = try #require(try JSONSerialization.jsonObject(with: Data(try ok(vault, ["audit", "log", "--json"]).utf8)) as? [[String: Any]])
        return log.compactMap { $0["action"] as? String }
    }

    @Test("a Markdown file becomes a document in the folder --in names, its blocks in the text form, added and written in one transaction")
    func markdownFile() throws {
        let vault = try CLIVault()
        _ = try Self.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        _ = try Self.ok(vault, ["doc", "add", "Harbour", "One", "--folder"])
        try vault.write("# Arrival\n\nThe boat *came* in.\nIt rained.\n\n* rope\n* net\n\n> nobody waved\n", to: vault.root + "/arrival.md")
        let before = try Self.auditActions(vault)
        let imported = try Self.json(try Self.ok(vault, ["doc", "import", "Harbour", "Arrival", vault.root + "/arrival.md", "--in", "One", "--json"]))
        #expect(imported["format"] as? String == "md" && imported["blocks"] as? Int == 5 && imported["kind"] as? String == "scene", "\(imported)")
        #expect(try Self.ok(vault, ["doc", "show", "Harbour", "Arrival"])
                == "# Arrival\n\nThe boat *came* in.\nIt rained.\n\n- rope\n- net\n\n> nobody waved\n")
        #expect(try Self.ok(vault, ["doc", "list", "Harbour"]).contains("  Arrival"), "inside the folder")
        let added = try Self.auditActions(vault).dropFirst(before.count)
        #expect(added.contains("writing.node-add") && added.contains("writing.content-write"), "\(added)")
    }

    @Test("the format comes from --format, else the extension (.txt is plain text), else Markdown; standard input works")
    func formats() throws {
        let vault = try CLIVault()
        _ = try Self.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        try vault.write("# not a heading\n\nsecond\n", to: vault.root + "/notes.txt")
        _ = try Self.ok(vault, ["doc", "import", "Harbour", "Notes", vault.root + "/notes.txt"])
        let shown = try Self.json(try Self.ok(vault, ["doc", "show", "Harbour", "Notes", "--json"]))
        #expect((shown["blocks"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["paragraph", "paragraph"])
        _ = try Self.ok(vault, ["doc", "import", "Harbour", "Forced", vault.root + "/notes.txt", "--format", "md"])
        #expect(try Self.ok(vault, ["doc", "show", "Harbour", "Forced"]) == "# not a heading\n\nsecond\n")
        _ = try Self.ok(vault, ["doc", "import", "Harbour", "Piped"], stdin: "## From stdin\n")
        #expect(try Self.ok(vault, ["doc", "show", "Harbour", "Piped"]) == "## From stdin\n")
        let unknown = try vault.run(["doc", "import", "Harbour", "Bad", "-", "--format", "rtf"], stdin: "x")
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown format 'rtf'"), "\(unknown.stderr)")
    }

    @Test("hostile files (invalid UTF-8, a NUL, 100 MB, quotes and lists nested 10,000 deep) are refused for their reason and add nothing")
    func hostileFiles() throws {
        let vault = try CLIVault()
        _ = try Self.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        let cases: [(name: String, bytes: Data, status: Int32, reason: String)] = [
            ("utf8.md", Data([0x61, 0xFF, 0x0A]), 65, "not valid UTF-8 (at byte 1)"),
            ("nul.md", Data("a\u{0}b\n".utf8), 65, "NUL byte"),
            ("huge.md", Data(repeating: 0x61, count: 100 << 20), 65, "over 16777216 bytes"),
            ("quotes.md", Data((String(repeating: ">", count: 10_000) + " deep\n").utf8), 64, "more than 64 deep"),
            ("lists.md", Data((String(repeating: "- ", count: 10_000) + "deep\n").utf8), 64, "more than 64 deep"),
        ]
        let listing = try Self.ok(vault, ["doc", "list", "Harbour", "--json"])
        let before = try Self.auditActions(vault).filter { $0.hasPrefix("writing.") }
        for hostile in cases {
            let path = vault.root + "/" + hostile.name
            try hostile.bytes.write(to: URL(fileURLWithPath: path))
            let result = try vault.run(["doc", "import", "Harbour", "Hostile", path])
            #expect(result.status == hostile.status && result.stderr.contains(hostile.reason), "\(hostile.name): \(result.status) \(result.stderr)")
            try FileManager.default.removeItem(atPath: path)
        }
        #expect(try Self.ok(vault, ["doc", "list", "Harbour", "--json"]) == listing, "no document was added")
        #expect(try Self.auditActions(vault).filter { $0.hasPrefix("writing.") } == before, "nothing was recorded as written")
    }

    @Test("a privileged project refuses an import without a session (77, nothing added) and takes it with --purpose")
    func privilegedProjectNeedsASession() throws {
        let vault = try CLIVault()
        let created = try Self.json(try Self.ok(vault, ["project", "create", "Intake", "--register", "healthcare", "--json"]))
        let id = try #require(created["id"] as? String)
        for project in ["Intake", id] {
            let refused = try vault.run(["doc", "import", project, "Session 1", "-"], stdin: "S: slept badly.\n")
            #expect(refused.status == 77 && refused.stderr.contains("privileged"), "\(project): \(refused.status) \(refused.stderr)")
        }
        let purpose = ["--purpose", "write up the session"]
        let empty = try #require(try JSONSerialization.jsonObject(with: Data(try Self.ok(vault, ["doc", "list", id, "--json"] + purpose).utf8)) as? [Any])
        #expect(empty.isEmpty, "nothing was added without a session")
        _ = try Self.ok(vault, ["doc", "import", "Intake", "Session 1", "-"] + purpose, stdin: "S: slept badly.\n")
        #expect(try Self.ok(vault, ["doc", "show", "Intake", "Session 1"] + purpose) == "S: slept badly.\n")
        #expect(try Self.auditActions(vault).contains("session.start"))
    }
}
