import CryptoVault
import Registers
import Testing
@testable import Writing

/// The text form (`doc show` prints, `doc write` reads; SECURITY.md §14.7): whatever is printed
/// reads back as the same blocks, and a line that cannot be read is refused with its number.
@Suite("the text form")
struct TextFormTests {
    static func parts(_ content: DocumentContent) -> [Block.Parts] {
        content.blocks.map { Block.Parts(kind: $0.kind, text: $0.text, rows: $0.rows) }
    }

    static func content(_ parts: [(BlockKind, String, [[String]])]) throws -> DocumentContent {
        DocumentContent(blocks: try parts.map { Block(id: try BlockID.random(), kind: $0.0, text: $0.1, rows: $0.2) })
    }

    /// Printed with `labels` and read back with them: the same kinds, slots, texts and cells, and the same text again.
    static func expectRoundTrip(_ content: DocumentContent, labels: FieldEditor?, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = PlainText.render(content, labels: labels)
        let read = try PlainText.parse(Array(text.utf8), labels: labels)
        #expect(parts(read) == parts(content), "\(comment): \(text.debugDescription)", sourceLocation: sourceLocation)
        #expect(PlainText.render(read, labels: labels) == text, "\(comment)", sourceLocation: sourceLocation)
    }

    @Test("every register's every template, printed in its register's words, reads back block for block (fields and tables keep their kind)",
          arguments: Register.allCases)
    func templatesRoundTrip(register: Register) throws {
        for template in register.profile.templates {
            let content = try Self.content(template.blocks.map { ($0.kind, $0.text, $0.rows) })
            try Self.expectRoundTrip(content, labels: FieldEditor(register), "\(register) \(template.id)")
            try Self.expectRoundTrip(content, labels: nil, "\(template.id) by slot names")
        }
    }

    @Test("blocks whose text looks like another kind, blank lines, backslashes, line breaks in headings and cells: all read back as printed")
    func awkwardBlocksRoundTrip() throws {
        let awkward: [(BlockKind, String, [[String]])] = [
            (.paragraph, "- not an item\n# not a heading\n> not a quote\n| not a row\nDate: not a field\n\\ a backslash", []),
            (.paragraph, "", []), (.paragraph, "a\n\nb\n  \nc", []), (.paragraph, "Date:", []), (.paragraph, "documentAuthor: me", []),
            (.heading(level: 3), "two\nlines", []), (.listItem, "", []), (.listItem, "item\n- with a dash line", []),
            (.quote, "\nquoted\n\n", []), (.quote, "", []),
            (.table, "", [["a | b", "back\\slash", "line\nbreak", " spaced ", ""], [], ["|", "\\n", "\\|"]]),
            (.field(.documentDate), "", []), (.field(.documentDate), "5 December\n- not an item\nmore", []),
            (.field(.documentReference), "  padded", []), (.field(.personRole), "Claimant", []), (.field(.placeDescription), "", []),
            (.listItem, "after", []), (.listItem, "\\", []),
        ]
        for register in [Register.legal, .healthcare, .fiction] {
            try Self.expectRoundTrip(try Self.content(awkward), labels: FieldEditor(register), "\(register)")
        }
        try Self.expectRoundTrip(try Self.content(awkward), labels: nil, "slot names")
    }

    @Test("a field line is read in the register's words: 'Date of service:' is a healthcare field, a paragraph in a legal project; 'Notes:' stays a paragraph")
    func fieldsInTheRegistersWords() throws {
        let text = "Date of service: 4 Dec\nRecord number:\nClinician: Dr Rao\n\nNotes: call back\n\nDate: 5 Dec\n"
        let healthcare = try PlainText.parse(Array(text.utf8), labels: FieldEditor(.healthcare))
        #expect(healthcare.blocks.map(\.kind) == [.field(.documentDate), .field(.documentReference), .field(.documentAuthor), .paragraph, .paragraph])
        #expect(healthcare.blocks.map(\.text) == ["4 Dec", "", "Dr Rao", "Notes: call back", "Date: 5 Dec"])
        let legal = try PlainText.parse(Array(text.utf8), labels: FieldEditor(.legal))
        #expect(legal.blocks.map(\.kind) == [.paragraph, .paragraph, .field(.documentDate)])
        #expect(legal.blocks[0].text == "Date of service: 4 Dec\nRecord number:\nClinician: Dr Rao")
    }

    @Test("a line starting with '|' that is not a table row is refused, naming its line and never its text")
    func malformedRowsRefused() throws {
        for (text, line) in [("Intro\n\n| a | b", 3), ("| a |b |", 1), ("x\n|no space |", 2), ("| a \\q |", 1), ("| secret", 1), ("|| a |", 1)] {
            do {
                _ = try PlainText.parse(Array(text.utf8), labels: FieldEditor(.healthcare))
                Issue.record("\(text.debugDescription) was read")
            } catch let error as WritingError {
                #expect(error.code == .invalidText && error.message.hasPrefix("line \(line) starts with '|' but is not a table row"), "\(error.message)")
                #expect(!error.message.contains("secret"))
            }
        }
        #expect(try PlainText.parse(Array("\\| a bar\n".utf8)).blocks.map(\.text) == ["| a bar"])
        let table = try PlainText.parse(Array("| Medication | Dose |\n|  |  |\n".utf8))
        #expect(table.blocks.map(\.kind) == [.table] && table.blocks[0].rows == [["Medication", "Dose"], ["", ""]])
    }

    @Test("an edited field keeps its kind, slot and id; the other blocks keep theirs")
    func editedFieldKeepsItsKind() throws {
        let labels = FieldEditor(.healthcare)
        let soap = try #require(Register.healthcare.profile.templates.first { $0.id == "soap-note" })
        let old = try Self.content(soap.blocks.map { ($0.kind, $0.text, $0.rows) })
        let edited = PlainText.render(old, labels: labels).replacingOccurrences(of: "Date of service:", with: "Date of service: 4 December 2026")
        let new = try PlainText.parse(Array(edited.utf8), labels: labels).reusingIDs(of: old)
        #expect(new.blocks.map(\.id) == old.blocks.map(\.id))
        #expect(new.blocks.map(\.kind) == old.blocks.map(\.kind))
        #expect(new.blocks[1].kind == .field(.documentDate) && new.blocks[1].text == "4 December 2026")
    }
}
