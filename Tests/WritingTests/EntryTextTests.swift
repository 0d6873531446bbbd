import CryptoVault
import Registers
import Testing
@testable import Writing

/// The text form of an entry (`EntryText`, SECURITY.md §14.7): field lines in the register's labels,
/// then the body; hidden and foreign labels are not fields; what is printed reads back the same.
@Suite struct EntryTextTests {
    static func parse(_ text: String, _ kind: EntryKind, _ register: Register) throws -> EntryText.Parsed {
        try EntryText.parse(Array(text.utf8), kind: kind, labels: FieldEditor(register))
    }

    @Test("a legal party's fields are read by their labels, then the body after the empty line")
    func legalParty() throws {
        let parsed = try Self.parse("Party type: Defendant\r\nIdentification: ID 9\n\nLine one.\nLine two.\n", .character, .legal)
        #expect(parsed == EntryText.Parsed(fields: [.personRole: "Defendant", .personIdentification: "ID 9"], body: "Line one.\nLine two."))
    }

    @Test("a hidden label, a label of another kind and an unknown one end the fields: they are body")
    func hiddenAndForeignLabels() throws {
        #expect(try Self.parse("Relationship: sister\nRole: carer\n", .character, .healthcare)
                == EntryText.Parsed(fields: [.personRelationship: "sister"], body: "Role: carer"))
        #expect(try Self.parse("Description: by the sea\n", .character, .fiction) == EntryText.Parsed(fields: [:], body: "Description: by the sea"))
        #expect(try Self.parse("Role: x\n", .plotBeat, .fiction) == EntryText.Parsed(fields: [:], body: "Role: x"))
    }

    @Test("refused: a field given twice, a control character, invalid UTF-8, and text past an entry's size, without quoting it")
    func refusals() throws {
        let twice = #expect(throws: WritingError.self) { try Self.parse("Role: a\nRole: b\n", .character, .fiction) }
        #expect(twice?.code == .invalidText && twice?.message.contains("given twice") == true && twice?.message.contains("a\n") == false)
        #expect((#expect(throws: WritingError.self) { try Self.parse("Role: \u{7}\n", .character, .fiction) })?.code == .invalidText)
        #expect((#expect(throws: WritingError.self) { try EntryText.parse([0xFF], kind: .snippet, labels: FieldEditor(.general)) })?.code == .invalidText)
        let large = [UInt8](repeating: 0x61, count: WritingLimits.maximumBlockBytes + 1)
        #expect((#expect(throws: WritingError.self) { try EntryText.parse(large, kind: .snippet, labels: FieldEditor(.general)) })?.code == .blockTooLarge)
    }

    @Test("what render prints parses back to the same visible fields and body, also a body that looks like a field or starts empty")
    func roundTrip() throws {
        let labels = FieldEditor(.fiction)
        let entries = [
            ProjectEntry(id: try EntryID.random(), kind: .character, name: "Mara", body: "Keeps the light.\n\nTwo paragraphs.",
                         fields: [.personRole: "keeper", .personArc: "leaves"], orderKey: OrderKey.first),
            ProjectEntry(id: try EntryID.random(), kind: .character, name: "Tom", body: "Role: not a field", orderKey: OrderKey.first),
            ProjectEntry(id: try EntryID.random(), kind: .plotBeat, name: "Storm", body: "\nafter an empty line", orderKey: OrderKey.first),
            ProjectEntry(id: try EntryID.random(), kind: .place, name: "Quay", fields: [.placeDescription: "stone"], orderKey: OrderKey.first),
        ]
        for entry in entries {
            let text = EntryText.render(entry, labels: labels)
            #expect(try EntryText.parse(Array(text.utf8), kind: entry.kind, labels: labels) == EntryText.Parsed(fields: entry.fields, body: entry.body),
                    "\(text)")
        }
        // A hidden field is kept in the entry but not printed.
        let clinical = ProjectEntry(id: try EntryID.random(), kind: .character, name: "Ann", fields: [.personRole: "carer", .personBackground: "b"],
                                    orderKey: OrderKey.first)
        #expect(EntryText.render(clinical, labels: FieldEditor(.healthcare)) == "Background: b\n")
    }
}
