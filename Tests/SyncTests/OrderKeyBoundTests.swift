import CryptoVault
import Testing
@testable import Sync
import Writing

/// Review 17 s10, N-s10-2: a run of new paragraphs before an existing one got keys one after
/// another (n/6 digits for n paragraphs), and a newest-on-top log (each paragraph between a heading
/// and the last one) grew its keys a digit per ~5 entries: past 255 bytes the owner's own device
/// signed a record every reader refused, and the project went local-only. Now a run gets evenly
/// spread keys and a neighbourhood near the bound is re-keyed. Each test failed before (the edit
/// made a malformed record, which `ChangeRecord.make` now refuses).
@Suite struct OrderKeyBoundTests {
    /// Two devices holding one document of `texts`, in sync.
    static func pair(_ texts: [String]) throws -> (SyncFleet, NodeID, [Block]) {
        var fleet = try SyncFleet(devices: 2)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Chapter")
        let blocks = try texts.map { Block(id: try BlockID.random(), kind: .paragraph, text: $0) }
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: blocks))
        var generator = SeededGenerator(seed: 1)
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        return (fleet, document, blocks)
    }

    static func paragraphs(_ prefix: String, _ count: Int) throws -> [Block] {
        try (0..<count).map { Block(id: try BlockID.random(), kind: .paragraph, text: "\(prefix) \($0)") }
    }

    /// Every record device `from` made parses back as itself; the other device takes them all
    /// and shows the same document, `expected`.
    static func expectTaken(_ fleet: inout SyncFleet, from: Int, _ document: NodeID, _ expected: [Block]) {
        for record in fleet.replicas[from].records(missingFrom: [:]) {
            #expect((try? ChangeRecordCodec.parse(record.encoded)) == record)
        }
        var generator = SeededGenerator(seed: 2)
        fleet.sync(from: from, to: 1 - from, shuffle: &generator)
        #expect(fleet.replicas[1 - from].refusals.isEmpty)
        #expect(fleet.replicas[1 - from].content(of: document).blocks == expected)
        #expect(fleet.replicas[from].content(of: document).blocks == expected)
    }

    /// The longest order key among the blocks of `document`.
    static func longestKey(_ replica: inout SyncReplica, _ document: NodeID) -> Int {
        replica.orderedBlocks(of: document).map(\.orderKey.utf8.count).max() ?? 0
    }

    @Test func sixteenHundredParagraphsWrittenBeforeAnExistingOneSync() throws {
        var (fleet, document, blocks) = try Self.pair(["Opening line.", "The end."])
        let written = [blocks[0]] + (try Self.paragraphs("Paragraph", 1_600)) + [blocks[1]]
        _ = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: written)))
        // Evenly spread: about log36(1,600) digits past the neighbours', not 1,600/6.
        #expect(Self.longestKey(&fleet.replicas[0], document) <= 6)
        Self.expectTaken(&fleet, from: 0, document, written)
    }

    @Test func aNewestOnTopLogOfThirteenHundredEntriesSyncs() throws {
        var (fleet, document, blocks) = try Self.pair(["Activity log", "First entry."])
        var written = blocks
        for entry in try Self.paragraphs("Entry", 1_300) {
            written.insert(entry, at: 1)
            _ = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: written)))
        }
        #expect(Self.longestKey(&fleet.replicas[0], document) <= OrderKey.maximumLength)
        Self.expectTaken(&fleet, from: 0, document, written)
    }

    /// A colleague's client wrote two adjacent blocks whose 255-byte keys differ by one in the last
    /// digit (valid records): a paragraph typed between them here re-keys them, and the peer takes it.
    @Test func aParagraphBetweenTwoAdjacentLongestKeysRekeysThem() throws {
        var (fleet, document, blocks) = try Self.pair(["Heading"])
        let prefix = "1i" + String(repeating: "0", count: 252)
        let left = Block(id: try BlockID.random(), kind: .paragraph), right = Block(id: try BlockID.random(), kind: .paragraph)
        _ = try fleet.replicas[1].commit([.block(document: document, left.id, .present(orderKey: prefix + "1", block: left)),
                                          .block(document: document, right.id, .present(orderKey: prefix + "2", block: right))])
        var generator = SeededGenerator(seed: 3)
        fleet.sync(from: 1, to: 0, shuffle: &generator)
        #expect(fleet.replicas[0].refusals.isEmpty)
        let between = Block(id: try BlockID.random(), kind: .paragraph, text: "Typed between them.")
        let written = [blocks[0], left, between, right]
        let record = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: written)))
        #expect(record.operations.count >= 2)  // the new block, and a neighbour moved to a new key
        #expect(Self.longestKey(&fleet.replicas[0], document) <= OrderKey.maximumLength)
        Self.expectTaken(&fleet, from: 0, document, written)
    }
}
