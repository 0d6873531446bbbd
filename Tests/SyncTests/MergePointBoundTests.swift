import CryptoVault
import Testing
@testable import Sync
import Writing

/// The cost bound of merge points (merge-design §1.5, SECURITY.md §19.3): a record of two or more
/// parents folds only the blocks written by the records in its past that its device's previous
/// record had not seen, never every block the project holds. Counted as work done
/// (`MergePointScope.blocksExamined`), not timed. An implementation bound: a replica that folds
/// every block at every merge point (`foldsEveryBlockAtMergePoints`, the rule before the bound)
/// makes exactly the same conflicts from the same records.
@Suite struct MergePointBoundTests {
    static let paragraphs = 40

    /// Three devices of one document of `paragraphs` blocks, each changed at once on devices 0 and
    /// 2 and then synced everywhere (joined): every block has two heads and one conflict, and
    /// nothing touches them after.
    static func conflictedEverywhere() throws -> (fleet: SyncFleet, document: NodeID, blocks: [Block]) {
        var fleet = try SyncFleet(devices: 3)
        var generator = SeededGenerator(seed: 15)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Notes")
        let blocks = try (0..<paragraphs).map { Block(id: try BlockID.random(), kind: .paragraph, text: "paragraph \($0)") }
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: blocks))
        fleet.healAll(&generator)
        for (device, word) in [(0, "desk"), (2, "laptop")] {
            _ = try fleet.replicas[device].edit(document, to: DocumentContent(blocks: blocks.map { rewritten($0, "\(word) \($0.text)") }))
        }
        fleet.healAll(&generator)
        return (fleet, document, blocks)
    }

    static func rewritten(_ block: Block, _ text: String) -> Block {
        var block = block
        block.text = text
        return block
    }

    /// Device `device` changes block `index` of what it shows.
    @discardableResult
    static func write(_ text: String, block index: Int, on device: Int, _ fleet: inout SyncFleet, _ document: NodeID) throws -> ChangeRecord {
        var content = fleet.replicas[device].content(of: document)
        content.blocks[index].text = text
        return try #require(try fleet.replicas[device].edit(document, to: content))
    }

    /// The phone (device 1) changes the first paragraph while the desk (device 0) changes the
    /// second; the desk takes the phone's record and changes the third: a merge record of two
    /// parents, which must look at the one block the phone's record wrote. Then all heal.
    static func honestMerge(_ fleet: inout SyncFleet, _ document: NodeID, _ generator: inout SeededGenerator) throws -> ChangeRecord {
        try write("phone's first paragraph", block: 0, on: 1, &fleet, document)
        try write("desk's second paragraph", block: 1, on: 0, &fleet, document)
        fleet.sync(from: 1, to: 0, shuffle: &generator)
        let before = fleet.replicas[0].mergePointScope.blocksExamined
        let merge = try write("desk's third paragraph", block: 2, on: 0, &fleet, document)
        let examined = fleet.replicas[0].mergePointScope.blocksExamined - before
        #expect(merge.parents.count == 2)
        #expect(examined == 1, "the merge record looked at \(examined) blocks")
        fleet.healAll(&generator)
        return merge
    }

    /// A replica given `records` in order, folding every block at every merge point (or not), with
    /// the blocks each merge point record of `watched` made it look at.
    static func replay(_ records: [ChangeRecord], keys: [DeviceID: [UInt8]], project: ProjectID, foldingEveryBlock: Bool,
                       watching watched: Set<[UInt8]> = []) -> (replica: SyncReplica, examined: [[UInt8]: Int]) {
        var replica = SyncReplica(project: project, author: nil, devices: keys)
        replica.foldsEveryBlockAtMergePoints = foldingEveryBlock
        var examined: [[UInt8]: Int] = [:]
        for record in records {
            let before = replica.mergePointScope.blocksExamined
            #expect(replica.receive(record.encoded) == .applied(1), "record \(CausalHistory.short(record.hash)) not applied")
            if watched.contains(record.hash) { examined[record.hash] = replica.mergePointScope.blocksExamined - before }
        }
        return (replica, examined)
    }

    /// The same records make the same conflicts (facts and pending), documents and heads with the
    /// bound as without it.
    static func expectSameResult(_ fleet: SyncFleet, _ document: NodeID, watching watched: Set<[UInt8]> = []) -> (bounded: [[UInt8]: Int], every: [[UInt8]: Int]) {
        let records = fleet.replicas[0].records(missingFrom: [:])
        let keys = fleet.replicas[0].devices
        var (bounded, boundedWork) = replay(records, keys: keys, project: fleet.project, foldingEveryBlock: false, watching: watched)
        var (every, everyWork) = replay(records, keys: keys, project: fleet.project, foldingEveryBlock: true, watching: watched)
        // The merge points' own conflicts (not only those the joins' 0x03s record too).
        #expect(ConvergenceTests.byName(bounded.liveConflicts()) == ConvergenceTests.byName(every.liveConflicts()))
        #expect(bounded.conflicts() == every.conflicts())
        #expect(bounded.pendingConflicts == every.pendingConflicts)
        #expect(bounded.content(of: document).canonicalBytes == every.content(of: document).canonicalBytes)
        var held = fleet.replicas[0]
        #expect(held.conflicts() == every.conflicts())
        return (boundedWork, everyWork)
    }

    /// After `paragraphs` conflicted blocks nobody touches, a merge record of two devices' edits of
    /// one block each folds the one block the other device's record wrote, not all forty.
    @Test func aMergeRecordFoldsOnlyTheBlocksItsBranchesWroteNotEveryConflictedBlock() throws {
        var (fleet, document, blocks) = try Self.conflictedEverywhere()
        #expect(fleet.replicas[0].conflicts().count == Self.paragraphs)
        for block in blocks { #expect(fleet.replicas[0].blockRegister(block.id)?.heads.count == 2) }
        var generator = SeededGenerator(seed: 16)
        let merge = try Self.honestMerge(&fleet, document, &generator)

        // Replayed elsewhere: the same conflicts with the bound as without; without it the same
        // record looks at every block (the cost the bound takes away).
        let (bounded, every) = Self.expectSameResult(fleet, document, watching: [merge.hash])
        #expect(bounded[merge.hash] == 1)
        #expect(every[merge.hash] == Self.paragraphs)
    }

    /// A paired device that signs merge record after merge record (listing its previous record and
    /// an old one, writing no block) costs a replica no fold of the conflicted blocks, and leaves an
    /// honest merge after them at the blocks its own branches wrote: a hostile peer cannot make every
    /// later merge cost O(all blocks).
    @Test func aHostileDevicesMergeRecordsDoNotRaiseALaterHonestMergesCost() throws {
        var (fleet, document, _) = try Self.conflictedEverywhere()
        var generator = SeededGenerator(seed: 17)
        let hostile = try #require(fleet.replicas[2].author)
        let oldest = try #require(fleet.replicas[2].records(missingFrom: [:]).first)
        var previous = try #require(fleet.replicas[2].records(missingFrom: [:]).last { $0.device == hostile.device })
        let node = try #require(fleet.replicas[2].nodeValue(document))
        var forged: [ChangeRecord] = []
        for _ in 0..<25 {
            let record = try ChangeRecord.make(project: fleet.project, author: hostile, counter: previous.counter + 1,
                                               lamport: fleet.replicas[2].history.maximumLamport + UInt64(forged.count) + 1,
                                               parents: [previous.hash, oldest.hash], operations: [.node(document, node)])
            #expect(record.parents.count == 2)
            forged.append(record)
            previous = record
        }
        let before = fleet.replicas[0].mergePointScope.blocksExamined
        for record in forged { #expect(fleet.replicas[0].receive(record.encoded) == .applied(1)) }
        #expect(fleet.replicas[0].mergePointScope.blocksExamined == before, "\(forged.count) merge records of no block looked at \(fleet.replicas[0].mergePointScope.blocksExamined - before) blocks")

        // An honest merge after them: the phone's edit of one block meets the desk's of another.
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        let merge = try Self.honestMerge(&fleet, document, &generator)

        let watched = Set(forged.map(\.hash) + [merge.hash])
        let (bounded, every) = Self.expectSameResult(fleet, document, watching: watched)
        #expect(forged.allSatisfy { bounded[$0.hash] == 0 })
        #expect(bounded[merge.hash] == 1)
        // Without the bound each forged record looks at every block, and so does the honest merge.
        #expect(forged.allSatisfy { every[$0.hash] == Self.paragraphs })
        #expect(every[merge.hash] == Self.paragraphs)
    }
}

/// A document's blocks in reading order (`SyncReplica.inReadingOrder`, SECURITY.md §19.3): by
/// order key as bytes (UTF-8), ties by block id: the same order on every device whatever the keys hold.
@Suite struct ReadingOrderTests {
    @Test func blocksAreOrderedByTheirKeysUTF8BytesThenById() throws {
        let keys = ["b", "a", "Z", "é", "e", "aa", "a", "\u{7F}", "€", "ab", "A", ""]
        let blocks = try keys.map { (orderKey: $0, block: Block(id: try BlockID.random(), kind: .paragraph, text: $0)) }
        let expected = blocks.sorted { a, b in
            a.orderKey == b.orderKey ? a.block.id.bytes.lexicographicallyPrecedes(b.block.id.bytes)
                : Array(a.orderKey.utf8).lexicographicallyPrecedes(Array(b.orderKey.utf8))
        }
        #expect(SyncReplica.inReadingOrder(blocks).map(\.block.id) == expected.map(\.block.id))
        #expect(SyncReplica.inReadingOrder(blocks).map(\.orderKey) == ["", "A", "Z", "a", "a", "aa", "ab", "b", "e", "\u{7F}", "é", "€"])
    }
}
