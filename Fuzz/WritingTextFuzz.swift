// fuzz-sources: Sources/AuditChain
// fuzz-sources: Sources/PrivilegedSession
// fuzz-sources: Sources/Registers
// fuzz-sources: Sources/Writing
// libFuzzer target: the writing model's parsers of hostile input (SECURITY.md §14.4, §14.5, §14.7).
// A block or entry value is read from a sealed record a damaged or hostile file may hold, and text
// comes from `vaultctl doc write` and `vaultctl entry add`. Each must refuse or succeed without trapping; a block or entry that
// decodes must encode back to exactly its bytes (one encoding); parsed text, printed and parsed
// again, gives the same blocks; and any key order keys derive stays valid and strictly between.
private let blockID = try! BlockID(bytes: [UInt8](repeating: 7, count: 16))
private let entryID = try! EntryID(bytes: [UInt8](repeating: 8, count: 16))

@_cdecl("LLVMFuzzerTestOneInput")
public func writingTextFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    for candidate in [bytes, [1, 9] + Array("paragraph".utf8) + bytes] {
        if let block = try? BlockEncoding.decode(candidate, id: blockID), BlockEncoding.encode(block) != candidate {
            fatalError("a block value did not round-trip")
        }
    }
    for kind in EntryKind.allCases {
        if let entry = try? EntryEncoding.decode([1] + bytes, id: entryID, kind: kind, orderKey: OrderKey.first),
           EntryEncoding.encode(entry) != [1] + bytes {
            fatalError("an entry value did not round-trip")
        }
    }
    // The text form (`doc write`, `doc show`): whatever parses, printed and parsed again, is the same
    // blocks (kind, slot, text and cells) and prints the same text; with a register's labels and without.
    for labels in [nil, FieldEditor(.healthcare), FieldEditor(.legal)] as [FieldEditor?] {
        guard let content = try? PlainText.parse(bytes, labels: labels) else { continue }
        let printed = PlainText.render(content, labels: labels)
        guard let again = try? PlainText.parse(Array(printed.utf8), labels: labels),
              again.blocks.map(\.parts) == content.blocks.map(\.parts), PlainText.render(again, labels: labels) == printed
        else { fatalError("printed text did not parse back to the same blocks") }
    }
    // Any block of the model's shape (a table: cells and no text; any other kind: text and no cells),
    // decoded from the input, printed, reads back as itself, unless its text holds a control character
    // the text form refuses (then `doc write` refuses it: nothing is lost silently).
    for candidate in [bytes, [1, 9] + Array("paragraph".utf8) + bytes] {
        guard let block = try? BlockEncoding.decode(candidate, id: blockID),
              block.kind == .table ? block.text.isEmpty && !block.rows.isEmpty : block.rows.isEmpty else { continue }
        let content = DocumentContent(blocks: [block, block])
        let printed = PlainText.render(content, labels: FieldEditor(.healthcare))
        guard !printed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !["\t", "\n"].contains($0) }) else { continue }
        guard let again = try? PlainText.parse(Array(printed.utf8), labels: FieldEditor(.healthcare)),
              again.blocks.map(\.parts) == content.blocks.map(\.parts)
        else { fatalError("a block printed did not parse back to itself") }
    }
    // An entry's text form (`vaultctl entry add`): refused or parsed, and what it prints reads back the same.
    for (kind, register) in [(EntryKind.character, Register.legal), (.character, .healthcare), (.place, .fiction), (.snippet, .general)] {
        let labels = FieldEditor(register)
        guard let parsed = try? EntryText.parse(bytes, kind: kind, labels: labels) else { continue }
        let entry = ProjectEntry(id: entryID, kind: kind, name: "n", body: parsed.body, fields: parsed.fields, orderKey: OrderKey.first)
        guard (try? EntryText.parse(Array(EntryText.render(entry, labels: labels).utf8), kind: kind, labels: labels)) == parsed else {
            fatalError("an entry's printed text did not parse back to the same fields and body")
        }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let halves = text.split(separator: " ", maxSplits: 1).map(String.init)
    if halves.count == 2, OrderKey.isValid(halves[0]), OrderKey.isValid(halves[1]), halves[0] < halves[1] {
        let key = OrderKey.between(halves[0], halves[1])
        guard halves[0] < key, key < halves[1] else { fatalError("an order key is not between its neighbours") }
    }
    return 0
}

extension Block {
    var parts: [String] { [BlockEncoding.name(of: kind), text] + rows.map { $0.joined(separator: "\u{1}") + "|\($0.count)" } }
}
