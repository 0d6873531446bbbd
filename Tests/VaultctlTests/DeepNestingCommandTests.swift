import Foundation
import Testing
import TestSupport

/// Issue 15's hostile input, deep nesting, through the command line: the library's refusals
/// (MarkdownImportTests, HostileWritingInputTests) reach the user as a clear error and exit 64, and
/// the project is as it was: no document, folder or move half made.
@Suite("deep nesting from the command line", .serialized)
struct DeepNestingCommandTests {
    /// The binder as `doc list --json` prints it, to compare before and after a refusal.
    static func binder(_ vault: CLIVault, _ project: String) throws -> String {
        try WritingCommandTests.ok(vault, ["doc", "list", project, "--json"])
    }

    @Test("Markdown nested 10,000 deep is refused naming the limit, and no document is added")
    func deepMarkdown() throws {
        let vault = try CLIVault()
        try WritingCommandTests.ok(vault, ["project", "create", "Harbour", "--register", "fiction"])
        let before = try Self.binder(vault, "Harbour")
        for markdown in [String(repeating: ">", count: 10_000) + " deep\n", String(repeating: "- ", count: 10_000) + "deep\n"] {
            let result = try vault.run(["doc", "import", "Harbour", "Deep", "-"], stdin: markdown)
            #expect(result.status == 64 && result.stderr.contains("more than 64 deep"), "\(result.status) \(result.stderr)")
        }
        #expect(try Self.binder(vault, "Harbour") == before)
    }

    @Test("a 33rd folder level is refused, and a move that would nest 40 deep is refused with nothing moved")
    func deepFolders() throws {
        let vault = try CLIVault()
        try WritingCommandTests.ok(vault, ["project", "create", "Saga", "--register", "fiction", "--kind", "long-form"])
        for level in 1...32 {
            try WritingCommandTests.ok(vault, ["doc", "add", "Saga", "A\(level)", "--folder"] + (level == 1 ? [] : ["--in", "A\(level - 1)"]))
        }
        let tooDeep = try vault.run(["doc", "add", "Saga", "A33", "--folder", "--in", "A32"])
        #expect(tooDeep.status == 64 && tooDeep.stderr.contains("at most 32 deep"), "\(tooDeep.status) \(tooDeep.stderr)")
        for level in 1...8 {
            try WritingCommandTests.ok(vault, ["doc", "add", "Saga", "B\(level)", "--folder"] + (level == 1 ? [] : ["--in", "B\(level - 1)"]))
        }
        try WritingCommandTests.ok(vault, ["doc", "add", "Saga", "Leaf", "--in", "B8"], stdin: nil)
        let before = try Self.binder(vault, "Saga")
        let move = try vault.run(["doc", "move", "Saga", "B1", "--in", "A30"])
        #expect(move.status == 64 && move.stderr.contains("deeper than 32"), "\(move.status) \(move.stderr)")
        #expect(try Self.binder(vault, "Saga") == before)
    }
}
