import Foundation
import Testing
import TestSupport

/// A writing command's error says the project's words (issue 15: labels in the project's
/// vocabulary): a lawyer hears of matters and sections, a clinician of charts and notes.
@Suite("vaultctl writing errors in the register's words", .serialized)
struct WritingVocabularyCommandTests {
    static func refused(_ vault: CLIVault, _ arguments: [String], stdin: String? = nil) throws -> (status: Int32, stderr: String) {
        let result = try vault.run(arguments, stdin: stdin)
        return (result.status, result.stderr)
    }

    @Test("legal: a section moved under itself, a title not in the matter, a privileged matter without a session")
    func legal() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "prepare the filing"]
        let created = try WritingCommandTests.ok(vault, ["project", "create", "Smith v. Jones", "--register", "legal", "--json"])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])?["id"] as? String)
        try WritingCommandTests.ok(vault, ["doc", "add", "Smith v. Jones", "Facts", "--folder"] + purpose)
        let moved = try Self.refused(vault, ["doc", "move", "Smith v. Jones", "Facts", "--in", "Facts"] + purpose)
        #expect(moved.status == 64 && moved.stderr.contains("a section cannot move under itself or under one of its own sections"), "\(moved)")
        let missing = try Self.refused(vault, ["doc", "show", "Smith v. Jones", "Memo"] + purpose)
        #expect(missing.stderr.contains("nothing titled 'Memo' in the matter"), "\(missing)")
        let privileged = try Self.refused(vault, ["doc", "list", id])
        #expect(privileged.status == 77 && privileged.stderr.contains("matter \(id) is privileged"), "\(privileged)")
        #expect(!(moved.stderr + missing.stderr + privileged.stderr).contains("folder") && !privileged.stderr.contains("project"))
    }

    @Test("healthcare: a folder given text says only a note has content, and a title quoted keeps its own words")
    func healthcare() throws {
        let vault = try CLIVault()
        try WritingCommandTests.ok(vault, ["project", "create", "Clinic", "--register", "healthcare", "--not-privileged"])
        try WritingCommandTests.ok(vault, ["doc", "add", "Clinic", "Intake documents", "--folder"])
        let written = try Self.refused(vault, ["doc", "write", "Clinic", "Intake documents"], stdin: "text\n")
        #expect(written.status == 64 && written.stderr.contains("is a folder: only a note has content"), "\(written)")
        let missing = try Self.refused(vault, ["doc", "show", "Clinic", "project document"])
        #expect(missing.stderr.contains("nothing titled 'project document' in the chart"), "\(missing)")
    }
}
