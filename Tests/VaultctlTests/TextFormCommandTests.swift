import CryptoVault
import Foundation
import Registers
import Testing
import TestSupport

/// A clinician's (or anyone's) round trip on the command line: `template use`, `doc show`, edit,
/// `doc write`. Field blocks and tables come back as what they were, not as paragraphs
/// (SECURITY.md §14.7).
@Suite("vaultctl doc show, then doc write: nothing lost", .serialized)
struct TextFormCommandTests {
    static func blocks(_ vault: CLIVault, _ project: String, _ document: String, _ extra: [String] = []) throws -> [[String: String]] {
        let shown = try WritingCommandTests.ok(vault, ["doc", "show", project, document, "--json"] + extra)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])
        let blocks = try #require(object["blocks"] as? [[String: Any]])
        return blocks.map { block in
            ["id": block["id"] as? String ?? "", "kind": block["kind"] as? String ?? "", "text": block["text"] as? String ?? "",
             "rows": "\(block["rows"] as? [[String]] ?? [])"]
        }
    }

    @Test("every template of the register, used, shown and written back: the same text byte for byte, every block's id, kind, text and cells kept",
          arguments: Register.allCases)
    func templateShowWriteIsByteIdentical(register: Register) throws {
        let vault = try CLIVault()
        try WritingCommandTests.ok(vault, ["project", "create", "P", "--register", register.rawValue, "--not-privileged"])
        for template in register.profile.templates {
            try WritingCommandTests.ok(vault, ["template", "use", "P", template.id, "--title", template.id])
            let shown = try WritingCommandTests.ok(vault, ["doc", "show", "P", template.id])
            let before = try Self.blocks(vault, "P", template.id)
            let written = try WritingCommandTests.ok(vault, ["doc", "write", "P", template.id], stdin: shown)
            #expect(written.contains(": 0 block(s) sealed, \(before.count) unchanged, 0 removed."), "\(template.id): \(written)")
            #expect(try WritingCommandTests.ok(vault, ["doc", "show", "P", template.id]) == shown, "\(template.id)")
            #expect(try Self.blocks(vault, "P", template.id) == before, "\(template.id)")
        }
    }

    @Test("a clinician fills the SOAP note's fields and the intake's medication table in a privileged project: each keeps its kind and id")
    func editedFieldsAndTableKeepTheirKind() throws {
        let vault = try CLIVault()
        let purpose = ["--purpose", "write up the session"]
        try WritingCommandTests.ok(vault, ["project", "create", "Intake", "--register", "healthcare"])
        try WritingCommandTests.ok(vault, ["template", "use", "Intake", "soap-note", "--title", "Session 4"] + purpose)
        let shown = try WritingCommandTests.ok(vault, ["doc", "show", "Intake", "Session 4"] + purpose)
        #expect(shown.contains("Date of service:\nRecord number:\nClinician:\n"), "\(shown)")
        let before = try Self.blocks(vault, "Intake", "Session 4", purpose)
        let edited = shown.replacingOccurrences(of: "Date of service:", with: "Date of service: 4 December 2026")
            .replacingOccurrences(of: "Clinician:", with: "Clinician: Dr A. Rao")
        let written = try WritingCommandTests.ok(vault, ["doc", "write", "Intake", "Session 4"] + purpose, stdin: edited)
        #expect(written.contains(": 2 block(s) sealed, \(before.count - 2) unchanged, 0 removed."), "\(written)")
        let after = try Self.blocks(vault, "Intake", "Session 4", purpose)
        #expect(after.map { $0["id"] } == before.map { $0["id"] } && after.map { $0["kind"] } == before.map { $0["kind"] })
        #expect(after[1]["kind"] == "field-documentDate" && after[1]["text"] == "4 December 2026")
        #expect(after[3]["kind"] == "field-documentAuthor" && after[3]["text"] == "Dr A. Rao")

        try WritingCommandTests.ok(vault, ["template", "use", "Intake", "intake-assessment", "--title", "Intake"] + purpose)
        let intake = try WritingCommandTests.ok(vault, ["doc", "show", "Intake", "Intake"] + purpose)
        #expect(intake.contains("| Medication | Dose | Frequency | Prescriber |\n|  |  |  |  |\n"), "\(intake)")
        let filled = intake.replacingOccurrences(of: "|  |  |  |  |", with: "| Sertraline | 50 mg | daily | Dr Rao |\n| Melatonin | 2 mg | at night |  |")
        try WritingCommandTests.ok(vault, ["doc", "write", "Intake", "Intake"] + purpose, stdin: filled)
        let table = try #require(try Self.blocks(vault, "Intake", "Intake", purpose).first { $0["kind"] == "table" })
        #expect(table["rows"] == "\([["Medication", "Dose", "Frequency", "Prescriber"], ["Sertraline", "50 mg", "daily", "Dr Rao"], ["Melatonin", "2 mg", "at night", ""]])")
    }

    @Test("a text whose table row is broken is refused (65) with the line's number, and the document is unchanged")
    func brokenRowRefusedNothingChanged() throws {
        let vault = try CLIVault()
        try WritingCommandTests.ok(vault, ["project", "create", "Notes", "--register", "healthcare", "--not-privileged"])
        try WritingCommandTests.ok(vault, ["template", "use", "Notes", "intake-assessment", "--title", "Intake"])
        let before = try WritingCommandTests.ok(vault, ["doc", "show", "Notes", "Intake", "--json"])
        let refused = try vault.run(["doc", "write", "Notes", "Intake"], stdin: "# Intake\n\n| Medication | Dose\n")
        #expect(refused.status == 65 && refused.stderr.contains("line 3 starts with '|' but is not a table row"), "\(refused.status) \(refused.stderr)")
        #expect(try WritingCommandTests.ok(vault, ["doc", "show", "Notes", "Intake", "--json"]) == before)
    }
}
