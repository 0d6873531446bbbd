import CryptoVault
@testable import Sync
import Testing
import Writing

/// What one record may cost a replica's text (SECURITY.md §19.2; review 17's F1): a delete names
/// characters its record saw and one record's deletes do not overlap, a block holds at most
/// `TextSequence.maximumCharacters` characters (deleted ones included) in a record's past, and a
/// record's edits times its blocks' characters stay under `TextSequence.maximumWork`. Refused as
/// such quickly, never worked through; honest long blocks still edit and converge.
@Suite struct TextWorkLimitTests {
    /// Two devices' replicas of one project holding one document with one empty block, made by device 0.
    static func twoDevices() throws -> (fleet: SyncFleet, document: NodeID, block: BlockID) {
        var fleet = try SyncFleet(devices: 2)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Long")
        let block = try BlockID.random()
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph)]))
        var generator = SeededGenerator(seed: 1)
        fleet.healAll(&generator)
        return (fleet, document, block)
    }

    /// Device 1's next record, signed, of `edits` to `block` (its value as it is), after every record it holds.
    static func record(_ fleet: SyncFleet, _ document: NodeID, _ block: BlockID, _ edits: [TextEdit]) throws -> ChangeRecord {
        let replica = fleet.replicas[1]
        let author = replica.author!
        let heads = replica.history.heads.map { replica.history.entries[$0].record.hash }
        return try ChangeRecord.make(project: fleet.project, author: author, counter: replica.history.counter(of: author.device) + 1,
                                     lamport: replica.history.maximumLamport + 1, parents: heads,
                                     operations: [.block(document: document, block, .present(orderKey: "1k", block: Block(id: block, kind: .paragraph))),
                                                  .text(document: document, block, edits)])
    }

    static func character(_ record: (device: DeviceID, counter: UInt64), _ offset: Int) -> CharacterID {
        CharacterID(device: record.device, counter: record.counter, offset: UInt32(offset))
    }

    static func refusal(_ outcome: ReceiveOutcome) -> SyncError? {
        if case .refused(let error) = outcome { return error }
        return nil
    }

    @Test func theReviewersRecordOfDeletesOverAllItTypedIsRefusedAtItsSecondDelete() throws {
        var (fleet, document, block) = try Self.twoDevices()
        let me = (device: fleet.replicas[1].author!.device, counter: fleet.replicas[1].history.counter(of: fleet.replicas[1].author!.device) + 1)
        // The shape of F1's input, smaller: four long inserts, then deletes of everything they typed, again and again.
        let run = 10_000
        var edits: [TextEdit] = (0..<4).map { part in
            .insert(after: part == 0 ? nil : Self.character(me, part * run - 1), text: String(repeating: "x", count: run))
        }
        edits += Array(repeating: TextEdit.delete(first: Self.character(me, 0), last: Self.character(me, 4 * run - 1)), count: 400)
        let record = try Self.record(fleet, document, block, edits)
        let started = ContinuousClock.now
        let error = try #require(Self.refusal(fleet.replicas[0].receive(record.encoded)))
        #expect(ContinuousClock.now - started < .seconds(5))
        // Its second delete passes over characters its first one marked (a delete marks only its view).
        #expect(error.code == .malformedRecord && error.message.contains("two text deletes of one record overlap"), "\(error)")
        // Nothing of it stayed: the block is as it was, and honest typing goes on.
        #expect(fleet.replicas[0].content(of: document).blocks.map(\.text) == [""])
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: "after")]))
        #expect(fleet.replicas[0].content(of: document).blocks.map(\.text) == ["after"])
    }

    @Test func deletesOfOneRecordThatOverlapAreRefused() throws {
        var (fleet, document, block) = try Self.twoDevices()
        let me = (device: fleet.replicas[1].author!.device, counter: fleet.replicas[1].history.counter(of: fleet.replicas[1].author!.device) + 1)
        // "abcdef": delete "cd", then "bcde" around it (both ends seen, but it passes over "cd" again).
        let record = try Self.record(fleet, document, block, [.insert(after: nil, text: "abcdef"),
                                                             .delete(first: Self.character(me, 2), last: Self.character(me, 3)),
                                                             .delete(first: Self.character(me, 1), last: Self.character(me, 4))])
        let error = try #require(Self.refusal(fleet.replicas[0].receive(record.encoded)))
        #expect(error.code == .malformedRecord && error.message.contains("overlap"), "\(error)")
        // Side by side they are fine.
        let fine = try Self.record(fleet, document, block, [.insert(after: nil, text: "abcdef"),
                                                           .delete(first: Self.character(me, 1), last: Self.character(me, 2)),
                                                           .delete(first: Self.character(me, 3), last: Self.character(me, 4))])
        #expect(fleet.replicas[0].receive(fine.encoded) == .applied(1))
        #expect(fleet.replicas[0].content(of: document).blocks.map(\.text) == ["af"])
    }

    @Test func aBlockPastItsCharactersInARecordsPastIsRefused() throws {
        var (fleet, document, block) = try Self.twoDevices()
        let me = (device: fleet.replicas[1].author!.device, counter: fleet.replicas[1].history.counter(of: fleet.replicas[1].author!.device) + 1)
        let chunk = WritingLimits.maximumBlockBytes
        let parts = TextSequence.maximumCharacters / chunk
        // One character over the bound, in one record: refused before any is placed.
        var edits: [TextEdit] = (0..<parts).map { .insert(after: $0 == 0 ? nil : Self.character(me, $0 * chunk - 1), text: String(repeating: "y", count: chunk)) }
        edits.append(.insert(after: Self.character(me, parts * chunk - 1), text: "z"))
        let over = try Self.record(fleet, document, block, edits)
        let error = try #require(Self.refusal(fleet.replicas[0].receive(over.encoded)))
        #expect(error.code == .malformedRecord && error.message.contains("characters"), "\(error)")
        #expect(fleet.replicas[0].content(of: document).blocks.map(\.text) == [""])
    }

    @Test func editsTimesTheirBlocksCharactersPastTheWorkBoundAreRefused() throws {
        var (fleet, document, block) = try Self.twoDevices()
        // Device 1 types a long block, honestly.
        let words = (0..<4_000).map { "w\($0)" }
        let typed = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: words.joined(separator: " "))])))
        var generator = SeededGenerator(seed: 2)
        fleet.healAll(&generator)
        let characters = fleet.replicas[1].characterCount(of: block)
        // Then one record deleting one character at a time, far apart: each delete alone is fine.
        let count = TextSequence.maximumWork / characters + 1
        let stride = characters / count
        #expect(stride >= 2)
        let edits: [TextEdit] = (0..<count).map { index in
            .delete(first: Self.character((typed.device, typed.counter), index * stride), last: Self.character((typed.device, typed.counter), index * stride))
        }
        let record = try Self.record(fleet, document, block, edits)
        let error = try #require(Self.refusal(fleet.replicas[0].receive(record.encoded)))
        #expect(error.code == .malformedRecord && error.message.contains("character steps"), "\(error)")
    }

    @Test func anHonestEditOfManyPlacesInALongBlockTravelsAsOneReplacementAndConverges() throws {
        var (fleet, document, block) = try Self.twoDevices()
        let words = (0..<15_000).map { "w\($0)" }
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: words.joined(separator: " "))]))
        var generator = SeededGenerator(seed: 3)
        fleet.healAll(&generator)
        // Every 75th word replaced: 200 hunks, 400 edits of a block of about 100,000 characters, over
        // the work bound as separate edits.
        let edited = words.enumerated().map { $0.offset % 75 == 0 ? "v\($0.offset)" : $0.element }.joined(separator: " ")
        #expect(400 * fleet.replicas[0].characterCount(of: block) > TextSequence.maximumWork)
        let record = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [Block(id: block, kind: .paragraph, text: edited)])))
        guard case .text(_, _, let edits)? = record.operations.last else { Issue.record("no text edits"); return }
        #expect(edits.count == 2)
        fleet.healAll(&generator)
        #expect(fleet.replicas[1].content(of: document).blocks.map(\.text) == [edited])
        #expect(fleet.replicas[1].refusals.isEmpty)
    }
}
