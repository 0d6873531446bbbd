import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A block of the records can be longer than what the writing store keeps in a block
/// (`WritingLimits.maximumBlockBytes`): once by two concurrent edits merged, now (the merge rule of
/// block conflicts, §19.3, shows one side whole) only by a hostile device's record. Every device
/// shows such a block in pieces, by one rule of the
/// records (SECURITY.md §19.3, `BlockOverflow`), so no device refuses the other's records and no
/// word is lost (review 17 s8, F12). Before the rule the receive threw `blockTooLarge` on both sides.
@Suite struct BlockOverflowTests {
    /// merge-cases.json's `overflow` known answers (written by the independent sync_merge.py).
    struct File: Decodable {
        struct Case: Decodable {
            struct Given: Decodable {
                let block: String
                let kind: String
                let rows: [[String]]
                let runs: [Run]
            }

            struct Run: Decodable {
                let text: String
                let count: Int

                init(from decoder: Decoder) throws {
                    var container = try decoder.unkeyedContainer()
                    text = try container.decode(String.self)
                    count = try container.decode(Int.self)
                }
            }

            struct Shown: Decodable {
                let block: String
                let kind: String
                let rows: [[String]]
                let bytes: Int
                let sha256: String
            }

            let name: String
            let blocks: [Given]
            let others: [String]
            let shown: [Shown]
        }

        let overflow: [Case]
    }

    @Test func theSplitIsTheIndependentReplaysKnownAnswers() throws {
        let file: File = try PackageFiles.decode("testvectors/sync/merge-cases.json", keys: .convertFromSnakeCase)
        #expect(file.overflow.count >= 8)
        for vector in file.overflow {
            let blocks = try vector.blocks.map { given in
                Block(id: try BlockID(hex: given.block), kind: try #require(BlockEncoding.kind(named: given.kind)),
                      text: given.runs.map { String(repeating: $0.text, count: $0.count) }.joined(), rows: given.rows)
            }
            let taken = Set(blocks.map(\.id) + (try vector.others.map { try BlockID(hex: $0) }))
            let shown = BlockOverflow.split(blocks) { taken.contains($0) }
            #expect(shown.map(\.id.hex) == vector.shown.map(\.block), "\(vector.name)")
            #expect(shown.map { BlockEncoding.name(of: $0.kind) } == vector.shown.map(\.kind), "\(vector.name)")
            #expect(shown.map(\.rows) == vector.shown.map(\.rows), "\(vector.name)")
            #expect(shown.map(\.text.utf8.count) == vector.shown.map(\.bytes), "\(vector.name)")
            #expect(shown.map { ByteEncoding.hex(SHA256.hash(Array($0.text.utf8))) } == vector.shown.map(\.sha256), "\(vector.name)")
            // Joined back, the pieces are the blocks given.
            #expect(SHA256.hash(BlockOverflow.joined(DocumentContent(blocks: shown), shown: blocks) { taken.contains($0) }.canonicalBytes) == SHA256.hash(DocumentContent(blocks: blocks).canonicalBytes), "\(vector.name)")
        }
    }

    /// `count` distinct words, `prefix` and a number, each followed by a space.
    static func words(_ prefix: String, _ count: Int) -> [String] { (0..<count).map { "\(prefix)\($0)" } }

    static func wordsShown(_ content: DocumentContent) -> Set<Substring> {
        Set(content.blocks.map(\.text).joined().split(whereSeparator: { $0 == " " }))
    }

    /// A hostile device's record (a device of the roster running other code): `text` put before the
    /// whole of `block`, past what the store keeps in a block. Under the merge rule of block
    /// conflicts (SECURITY.md §19.3) no merge makes a block past the bound any more (two devices'
    /// additions to one paragraph are a conflict, one side shown whole), so only such a record
    /// reaches the overflow path; its device's own vault never stores it.
    static func hostileLongRecord(_ text: String, before block: BlockID, in document: NodeID, by device: Int, of fleet: VersionFleet) throws -> [UInt8] {
        var replica = try fleet.sync(device) { try $0.replica(of: fleet.project) }
        // A record's text edits follow the block's value in it (record body version 2, §19.2).
        let shown = try #require(replica.orderedBlocks(of: document).first { $0.block.id == block })
        let value = BlockValue.present(orderKey: shown.orderKey, block: Block(id: block, kind: shown.block.kind, rows: shown.block.rows))
        return try replica.commit([.block(document: document, block, value),
                                   .text(document: document, block, [.insert(after: nil, text: text)])]).encoded
    }

    /// `device` takes `record` and refuses nothing.
    static func deliver(_ record: [UInt8], to device: Int, in fleet: VersionFleet) throws {
        let taken = try fleet.sync(device) { try $0.receive([record], for: fleet.project) }
        #expect(taken.stored == 1 && taken.refused == [], "refused: \(taken.refused.map(\.error.message))")
    }

    /// The review's case, on a hostile record: a 700 KiB paragraph on both devices, then a record of
    /// a third device putting 400 KiB more before it (past the bound). Both take it, show the same
    /// document byte for byte (the paragraph and a continuation), and every word is in it; nothing
    /// is refused.
    @Test func aHostileRecordPastTheBoundConvergesAndLosesNoWord() throws {
        let fleet = try VersionFleet(devices: 3)
        let common = Self.words("c", 102_400), hostile = Self.words("h", 61_000)
        let base = common.joined(separator: " ")
        let prefix = hostile.joined(separator: " ") + " "
        #expect(base.utf8.count > 690 * 1024 && base.utf8.count + prefix.utf8.count > WritingLimits.maximumBlockBytes)
        #expect(base.utf8.count + prefix.utf8.count < 2 * WritingLimits.maximumBlockBytes)
        let document = try fleet.document(on: 0, [base])
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 0, to: 2)
        #expect(SHA256.hash(try fleet.content(document, on: 1).canonicalBytes) == SHA256.hash(try fleet.content(document, on: 0).canonicalBytes))

        let block = try fleet.content(document, on: 0).blocks[0].id
        try Self.deliver(try Self.hostileLongRecord(prefix, before: block, in: document, by: 2, of: fleet), to: 0, in: fleet)
        try fleet.sync(from: 0, to: 1)

        let shown = try (0..<2).map { try fleet.content(document, on: $0) }
        #expect(SHA256.hash(shown[0].canonicalBytes) == SHA256.hash(shown[1].canonicalBytes))
        #expect(shown[0].blocks.count == 2, "the paragraph and its continuation")
        #expect(shown[0].blocks.allSatisfy { BlockOverflow.bytes(of: $0) <= WritingLimits.maximumBlockBytes })
        #expect(shown[0].blocks[1].id == BlockOverflow.continuation(of: shown[0].blocks[0].id, 1))
        #expect(shown[0].blocks.map(\.text).joined() == prefix + base, "the pieces are the record's text")
        let words = Self.wordsShown(shown[0])
        #expect((common + hostile).allSatisfy { words.contains(Substring($0)) }, "every word of the records is shown")
        #expect(words.count == common.count + hostile.count, "and none twice")
        // The records hold one block; nothing more to commit on either side.
        for device in 0..<2 {
            #expect(try fleet.sync(device) { try $0.commitLocalChanges(in: fleet.project) } == nil)
            var replica = try fleet.sync(device) { try $0.replica(of: fleet.project) }
            #expect(replica.orderedBlocks(of: document).count == 1)
        }

        // Typing in the continuation is typing in the block: a small record, and the other device shows it.
        var blocks = shown[0].blocks
        blocks[1].text += " tail"
        try fleet.store(0) { try $0.replaceDocumentContent(of: document, in: fleet.project, with: DocumentContent(blocks: blocks)) }
        let record = try #require(try fleet.sync(0) { try $0.commitLocalChanges(in: fleet.project) })
        #expect(record.encoded.count < 4096, "only the word typed travels")
        try fleet.sync(from: 0, to: 1)
        #expect(try fleet.content(document, on: 1).blocks.map(\.text).joined() == blocks.map(\.text).joined(), "the tablet shows the tail")
        #expect(SHA256.hash(try fleet.content(document, on: 0).canonicalBytes) == SHA256.hash(try fleet.content(document, on: 1).canonicalBytes))

        // Shortened below the bound (the tablet deletes the hostile words), it is one block again on both.
        var shorter = try fleet.content(document, on: 1).blocks
        #expect(shorter[0].text.hasPrefix(prefix))
        shorter[0].text = String(shorter[0].text.dropFirst(prefix.count))
        try fleet.store(1) { try $0.replaceDocumentContent(of: document, in: fleet.project, with: DocumentContent(blocks: shorter)) }
        try fleet.sync(from: 1, to: 0)
        let rejoined = try (0..<2).map { try fleet.content(document, on: $0) }
        #expect(SHA256.hash(rejoined[0].canonicalBytes) == SHA256.hash(rejoined[1].canonicalBytes))
        #expect(rejoined[0].blocks.count == 1)
        #expect(rejoined[0].blocks.first?.text == base + " tail", "the text, as the common words and the tail")
    }

    /// Review 17 s9, N-s9-11: a continuation whose id another project holds on a device is left out
    /// there (attack review s8, F1); an edit of ANOTHER paragraph on that device must not take the
    /// hidden piece's words for a deletion and remove them from every device.
    @Test func aContinuationLeftOutIsNoDeletionWhenTheDeviceEditsElsewhere() throws {
        let fleet = try VersionFleet(devices: 3)
        let common = Self.words("c", 102_400), hostile = Self.words("h", 61_000)
        let base = common.joined(separator: " ")
        let document = try fleet.document(on: 0, ["Opening.", base])
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 0, to: 2)
        let long = try fleet.content(document, on: 0).blocks[1].id
        // Another project on the tablet holds the id the paragraph's continuation will have, and keeps
        // it (of two projects of the same kind, the one that held the id first keeps it, SECURITY.md §19.5).
        try fleet.store(1) { store in
            let lowest = try ProjectID(bytes: Array(repeating: 0, count: 15) + [1])
            let other = try store.addSyncedProject(lowest, named: "Colleague notes", register: .general, kind: .document, privileged: false)
            let node = try store.addNode(.scene, titled: "Notes", in: other.id)
            try store.replaceDocumentContent(of: node.id, in: other.id, with: DocumentContent(blocks: [
                Block(id: BlockOverflow.continuation(of: long, 1), kind: .paragraph, text: "the colleague's words"),
            ]))
        }
        // A third device's hostile record puts the paragraph past the bound (no merge does, §19.3).
        let record = try Self.hostileLongRecord(hostile.joined(separator: " ") + " ", before: long, in: document, by: 2, of: fleet)
        try Self.deliver(record, to: 0, in: fleet)
        try fleet.sync(from: 0, to: 1)
        #expect(try fleet.content(document, on: 0).blocks.count == 3, "the desk shows the paragraph in two pieces")
        #expect(try fleet.content(document, on: 1).blocks.count == 2, "the continuation is left out on the tablet")
        // The tablet changes only the first paragraph, and syncs.
        try fleet.edit(document, on: 1, paragraph: 0, to: "Opening, revised.")
        try fleet.sync(from: 1, to: 0)
        let desks = try fleet.content(document, on: 0)
        #expect(desks.blocks.first?.text == "Opening, revised.")
        // The long paragraph's pieces (joined as they are cut: inside the text, never between words).
        let words = Self.wordsShown(DocumentContent(blocks: Array(desks.blocks.dropFirst())))
        #expect((common + hostile).allSatisfy { words.contains(Substring($0)) }, "the desk still shows every word of the records")
        #expect(words.count == common.count + hostile.count)
    }

    /// Both devices lengthen one long paragraph (each within the bound): under the merge rule of
    /// block conflicts (SECURITY.md §19.3) that is a conflict, not a merge past the bound: the
    /// document shows one side whole (one block, no pieces) and the other side is the conflict's.
    @Test func bothDevicesLengtheningOneLongParagraphIsAConflictNotABlockPastTheBound() throws {
        let fleet = try VersionFleet(devices: 2)
        let half = Self.words("h", 100_000).joined(separator: " ")
        let document = try fleet.document(on: 0, [half])
        try fleet.sync(from: 0, to: 1)
        let desk = half + " " + Self.words("d", 40_000).joined(separator: " "), tablet = Self.words("t", 40_000).joined(separator: " ") + " " + half
        try fleet.edit(document, on: 0, paragraph: 0, to: desk)
        try fleet.edit(document, on: 1, paragraph: 0, to: tablet)
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 1, to: 0)
        let shown = try (0..<2).map { try fleet.content(document, on: $0) }
        #expect(SHA256.hash(shown[0].canonicalBytes) == SHA256.hash(shown[1].canonicalBytes))
        #expect(shown[0].blocks.count == 1)
        let text = try #require(shown[0].blocks.first).text
        #expect(text == desk || text == tablet)
        let branches = try fleet.branches(document, on: 0).filter { $0.kind == .syncConflict }
        #expect(branches.count == 1)
    }
}
