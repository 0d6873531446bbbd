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
    if let content = try? PlainText.parse(bytes) {
        let again = try? PlainText.parse(Array(PlainText.render(content).utf8))
        guard again?.blocks.map({ [BlockEncoding.name(of: $0.kind), $0.text] }) == content.blocks.map({ [BlockEncoding.name(of: $0.kind), $0.text] })
        else { fatalError("printed text did not parse back to the same blocks") }
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
