import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Writing

/// Opened records are decoded where the vault opened them, in the transaction's locked scratch
/// buffer (SECURITY.md §4.8, §14): the store makes no whole copy of a record in ordinary memory,
/// and the checks on a decoded value still run there.
@Suite struct OpenedPlaintextTests {
    /// Files that still copy opened plaintext into an array, each for its reason: a snapshot record
    /// spans several sealed parts that `SnapshotRecord` and `SnapshotDelta` parse as one array, and
    /// a branch's proposed content likewise (`BranchRecord`, SECURITY.md §15.3), and a project
    /// snapshot's binder (`ProjectSnapshotRecord`, §15.2).
    static let knownCopies: Set<String> = ["Sources/Writing/Versions/WritingStore+Snapshots.swift",
                                           "Sources/Writing/Versions/WritingStore+Branches.swift",
                                           "Sources/Writing/Versions/ProjectSnapshotStore.swift"]

    /// The signatures (`func` to the opening brace, on one line) of every `open…` in Sources/Writing,
    /// and the lines there that copy a plaintext into an array.
    static func arrayCopies() throws -> (opens: [String], copies: [String]) {
        let files = try PackageFiles.swiftSources().filter { $0.path.hasPrefix("Sources/Writing/") }
        let regex = try NSRegularExpression(pattern: #"\bfunc\s+open\w*\b[^{]*"#)
        let opens = files.flatMap { file in
            regex.matches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)).compactMap { match in
                Range(match.range, in: file.text).map { "\(file.path): " + file.text[$0].split(whereSeparator: \.isWhitespace).joined(separator: " ") }
            }
        }
        let copying = ["Array(plaintext)", "[UInt8](plaintext)", "append(contentsOf: plaintext)", "exposedCopy()"]
        let copies = files.filter { !Self.knownCopies.contains($0.path) }.flatMap { file in
            file.text.split(separator: "\n").filter { line in copying.contains { line.contains($0) } }.map { "\(file.path): \($0)" }
        }
        return (opens, copies)
    }

    @Test("the store's open hands each record to its decoder in locked memory: no [UInt8] in its signature, no copy into an array")
    func noArrayCopies() throws {
        let (opens, copies) = try Self.arrayCopies()
        #expect(opens.contains { $0.hasPrefix("Sources/Writing/Store/RecordAccess.swift") && $0.contains("UnsafeRawBufferPointer") }, "\(opens)")
        #expect(opens.filter { $0.contains("UInt8]") } == [])
        #expect(copies == [])
    }

    @Test("a block, an entry and a damaged value decode from a raw buffer exactly as from an array")
    func decodingInPlace() throws {
        let table = Block(id: try BlockID.random(), kind: .table, rows: [["Name", "Role"], ["Ada", "Plaintiff"]])
        let encoded = BlockEncoding.encode(table)
        #expect(try encoded.withUnsafeBytes { try BlockEncoding.decode($0, id: table.id) } == table)
        #expect(try ([0xFF] + encoded).withUnsafeBytes { try BlockEncoding.decode($0[1...], id: table.id) } == table,
                "a slice starting past zero is read from its own start")
        let damaged = Array(encoded.dropLast())
        #expect(writingCode { try damaged.withUnsafeBytes { try BlockEncoding.decode($0, id: table.id) } } == .damagedRecord)
        let entry = ProjectEntry(id: try EntryID.random(), kind: .character, name: "Ada", body: "The plaintiff.",
                                 fields: [.personRole: "Plaintiff"], orderKey: "i")
        #expect(try EntryEncoding.encode(entry).withUnsafeBytes {
            try EntryEncoding.decode($0, id: entry.id, kind: .character, orderKey: "i")
        } == entry)
    }

    @Test("through the store: content, titles and entries read back; a block whose clear kind was edited is refused as damagedRecord")
    func storeDecodesInPlace() throws {
        let fixture = try WritingFixture()
        let novel = try fixture.project()
        let scene = try fixture.store { try $0.addNode(.scene, titled: "Harbour", in: novel.id) }
        try fixture.store { try $0.replaceDocumentContent(of: scene.id, in: novel.id, with: try WritingFixture.paragraphs(["Rain.", "Wind."])) }
        _ = try fixture.store { try $0.addEntry(.character, named: "Ada", body: "A sailor.", in: novel.id) }
        #expect(try fixture.store { try $0.documentContent(of: scene.id, in: novel.id) }.blocks.map(\.text) == ["Rain.", "Wind."])
        #expect(try fixture.store { try $0.nodes(in: novel.id) }.map(\.title) == ["Harbour"])
        #expect(try fixture.store { try $0.entries(in: novel.id) }.map(\.body) == ["A sailor."])
        try fixture.vault.tamper("UPDATE writing_blocks SET kind = 'quote' WHERE position = 1")
        let refused = try #require(throws: WritingError.self) { try fixture.store { try $0.documentContent(of: scene.id, in: novel.id) } }
        #expect(refused.code == .damagedRecord && refused.message.contains("clear kind"), "\(refused)")
    }
}
