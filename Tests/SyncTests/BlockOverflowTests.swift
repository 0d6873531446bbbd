import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// Two concurrent edits of one block can merge past what the writing store keeps in a block
/// (`WritingLimits.maximumBlockBytes`): every device shows such a block in pieces, by one rule of the
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

    /// The review's case: a 700 KiB paragraph on both devices, then 200 KiB more on each side while
    /// apart. Both take the other's records, show the same document byte for byte (the paragraph and
    /// a continuation), and every word either typed is in it; nothing is refused.
    @Test(.disabled("merge rule v2 (merge-design §4): two devices' additions to one paragraph are a conflict, so no merge makes a block past the bound; the overflow path is reached only by a hostile record now: to be rewritten on one (helper merge, s18 notes)")) func twoConcurrentAdditionsPastTheBoundConvergeAndLoseNoWord() throws {
        let fleet = try VersionFleet(devices: 2)
        let common = Self.words("c", 102_400), desk = Self.words("d", 30_500), tablet = Self.words("t", 30_500)
        let base = common.joined(separator: " ")
        #expect(base.utf8.count > 690 * 1024 && base.utf8.count + 200 * 1024 < WritingLimits.maximumBlockBytes)
        let document = try fleet.document(on: 0, [base])
        try fleet.sync(from: 0, to: 1)
        #expect(SHA256.hash(try fleet.content(document, on: 1).canonicalBytes) == SHA256.hash(try fleet.content(document, on: 0).canonicalBytes))

        try fleet.edit(document, on: 0, paragraph: 0, to: base + " " + desk.joined(separator: " "))
        try fleet.edit(document, on: 1, paragraph: 0, to: tablet.joined(separator: " ") + " " + base)
        for device in 0..<2 { #expect(try fleet.content(document, on: device).blocks[0].text.utf8.count < WritingLimits.maximumBlockBytes) }
        // Each receive threw blockTooLarge before the rule (the batch refused as writingRefused).
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 1, to: 0)

        let shown = try (0..<2).map { try fleet.content(document, on: $0) }
        #expect(SHA256.hash(shown[0].canonicalBytes) == SHA256.hash(shown[1].canonicalBytes))
        #expect(shown[0].blocks.count == 2, "the paragraph and its continuation")
        #expect(shown[0].blocks.allSatisfy { BlockOverflow.bytes(of: $0) <= WritingLimits.maximumBlockBytes })
        #expect(shown[0].blocks[1].id == BlockOverflow.continuation(of: shown[0].blocks[0].id, 1))
        let words = Self.wordsShown(shown[0])
        #expect((common + desk + tablet).allSatisfy { words.contains(Substring($0)) }, "every word typed on either device is shown")
        #expect(words.count == common.count + desk.count + tablet.count, "and none twice")
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

        // Shortened below the bound (the tablet deletes its words), it is one block again on both.
        var shorter = try fleet.content(document, on: 1).blocks
        shorter[0].text = String(shorter[0].text.dropFirst(tablet.joined(separator: " ").utf8.count + 1))
        try fleet.store(1) { try $0.replaceDocumentContent(of: document, in: fleet.project, with: DocumentContent(blocks: shorter)) }
        try fleet.sync(from: 1, to: 0)
        let rejoined = try (0..<2).map { try fleet.content(document, on: $0) }
        #expect(SHA256.hash(rejoined[0].canonicalBytes) == SHA256.hash(rejoined[1].canonicalBytes))
        #expect(rejoined[0].blocks.count == 1)
        #expect(rejoined[0].blocks.first?.text == base + " " + desk.joined(separator: " ") + " tail", "the text, as the desk's words and the tail")
    }

    /// Review 17 s9, N-s9-11: a continuation whose id another project holds on a device is left out
    /// there (attack review s8, F1); an edit of ANOTHER paragraph on that device must not take the
    /// hidden piece's words for a deletion and remove them from every device.
    @Test(.disabled("merge rule v2 (merge-design §4): two devices' additions to one paragraph are a conflict, so no merge makes a block past the bound; the overflow path is reached only by a hostile record now: to be rewritten on one (helper merge, s18 notes)")) func aContinuationLeftOutIsNoDeletionWhenTheDeviceEditsElsewhere() throws {
        let fleet = try VersionFleet(devices: 2)
        let common = Self.words("c", 102_400), desk = Self.words("d", 30_500), tablet = Self.words("t", 30_500)
        let base = common.joined(separator: " ")
        let document = try fleet.document(on: 0, ["Opening.", base])
        try fleet.sync(from: 0, to: 1)
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
        try fleet.edit(document, on: 0, paragraph: 1, to: base + " " + desk.joined(separator: " "))
        try fleet.edit(document, on: 1, paragraph: 1, to: tablet.joined(separator: " ") + " " + base)
        try fleet.sync(from: 0, to: 1)
        try fleet.sync(from: 1, to: 0)
        #expect(try fleet.content(document, on: 1).blocks.count == 2, "the continuation is left out on the tablet")
        // The tablet changes only the first paragraph, and syncs.
        try fleet.edit(document, on: 1, paragraph: 0, to: "Opening, revised.")
        try fleet.sync(from: 1, to: 0)
        let desks = try fleet.content(document, on: 0)
        #expect(desks.blocks.first?.text == "Opening, revised.")
        // The long paragraph's pieces (joined as they are cut: inside the text, never between words).
        let words = Self.wordsShown(DocumentContent(blocks: Array(desks.blocks.dropFirst())))
        #expect((common + desk + tablet).allSatisfy { words.contains(Substring($0)) }, "the desk still shows every word typed")
        #expect(words.count == common.count + desk.count + tablet.count)
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
