import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// Review 17 s9, N-s9-7: a continuation's id (`BlockOverflow.continuation`, SHA-256 of the block's
/// id) is computable by anyone who knows the block's, so a colleague (an editor) can give a block of
/// ANOTHER document of the project that id. Before, once the long paragraph went over the store's
/// bound, every device's write of its pieces met "block belongs to another document" and the batch
/// was refused (`writingRefused`), as before F12. Now a continuation skips every id the project's
/// records hold, in any document (SECURITY.md §19.3), and a block the records give to one document
/// that the store holds in another leaves that one first: both own devices converge, nothing refused.
@Suite struct ContinuationIDTests {
    static let desk = 0, laptop = 1, colleague = 2, hostile = 3

    /// The colleague's record adding, to `document`, a paragraph whose id is `id`.
    static func colleaguesParagraph(_ id: BlockID, in document: NodeID, of fleet: VersionFleet) throws -> [UInt8] {
        var replica = try fleet.sync(colleague) { try $0.replica(of: fleet.project) }
        return try replica.commit([.block(document: document, id, .present(orderKey: OrderKey.between(nil, nil), block: Block(id: id, kind: .paragraph))),
                                   .text(document: document, id, [.insert(after: nil, text: "The colleague's paragraph.")])]).encoded
    }

    /// Both own devices take the colleague's record (the laptop from the desk).
    static func deliver(_ record: [UInt8], in fleet: VersionFleet) throws {
        let taken = try fleet.sync(desk) { try $0.receive([record], for: fleet.project) }
        #expect(taken.stored == 1 && taken.refused == [])
        try fleet.sync(from: desk, to: laptop)
    }

    @Test(arguments: [true, false]) func aBlockWithAContinuationsIdInAnotherDocumentRefusesNothing(_ plantedFirst: Bool) throws {
        let fleet = try VersionFleet(devices: 4)
        let common = BlockOverflowTests.words("c", 102_400), hostiles = BlockOverflowTests.words("h", 61_000)
        let base = common.joined(separator: " ")
        let long = try fleet.document(on: Self.desk, ["Opening.", base])
        let other = try fleet.store(Self.desk) { store in
            let node = try store.addNode(.scene, titled: "Minutes", in: fleet.project)
            try store.replaceDocumentContent(of: node.id, in: fleet.project, with: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "Agenda.")]))
            return node.id
        }
        try fleet.sync(from: Self.desk, to: Self.laptop)
        try fleet.sync(from: Self.desk, to: Self.colleague)
        try fleet.sync(from: Self.desk, to: Self.hostile)
        let b = try fleet.content(long, on: Self.desk).blocks[1].id
        let planted = try Self.colleaguesParagraph(BlockOverflow.continuation(of: b, 1), in: other, of: fleet)
        if plantedFirst { try Self.deliver(planted, in: fleet) }

        // A hostile device's record pushes the paragraph over the bound (no merge does, §19.3), and
        // both own devices take it (the laptop from the desk).
        let over = try BlockOverflowTests.hostileLongRecord(hostiles.joined(separator: " ") + " ", before: b, in: long, by: Self.hostile, of: fleet)
        try BlockOverflowTests.deliver(over, to: Self.desk, in: fleet)
        try fleet.sync(from: Self.desk, to: Self.laptop)
        if !plantedFirst { try Self.deliver(planted, in: fleet) }
        try fleet.sync(from: Self.laptop, to: Self.desk)

        // Both show the same, byte for byte: the paragraph in pieces, none with the colleague's id, and the colleague's paragraph.
        for document in [long, other] {
            #expect(SHA256.hash(try fleet.content(document, on: Self.desk).canonicalBytes) == SHA256.hash(try fleet.content(document, on: Self.laptop).canonicalBytes))
        }
        let pieces = try fleet.content(long, on: Self.laptop).blocks
        #expect(pieces.count == 3 && pieces[2].id == BlockOverflow.continuation(of: b, 2), "the continuation skips the id another document's block has")
        #expect(try fleet.content(other, on: Self.laptop).blocks.map(\.text).sorted() == ["Agenda.", "The colleague's paragraph."])
        let words = BlockOverflowTests.wordsShown(DocumentContent(blocks: Array(pieces.dropFirst())))
        #expect((common + hostiles).allSatisfy { words.contains(Substring($0)) }, "every word of the records is shown")
        #expect(words.count == common.count + hostiles.count)
        // Nothing left to commit on either: the pieces are one block of the records.
        for device in [Self.desk, Self.laptop] {
            #expect(try fleet.sync(device) { try $0.commitLocalChanges(in: fleet.project) } == nil)
        }
        // An edit of the first paragraph on the laptop loses no word of the long one anywhere.
        try fleet.edit(long, on: Self.laptop, paragraph: 0, to: "Opening, revised.")
        try fleet.sync(from: Self.laptop, to: Self.desk)
        let desksNow = try fleet.content(long, on: Self.desk)
        #expect(desksNow.blocks.first?.text == "Opening, revised.")
        #expect(BlockOverflowTests.wordsShown(DocumentContent(blocks: Array(desksNow.blocks.dropFirst()))) == words)
    }
}
