import CryptoVault
import Foundation
import Testing
@testable import Sync
import Writing

/// Three devices, random edits and partitions, in memory (issue 17's first test): after the links
/// heal, every device shows byte-identical documents and the same conflicts, and every word typed
/// and never deleted on purpose is in the document or a conflict's branch. The words are counted
/// by `WordTracker`, which sees only what each device typed and removed, never the replicas' merge.
@Suite struct ConvergenceTests {
    /// CONVERGENCE_SCHEDULES runs fewer (a quick check while working); the suite's figure is 1,000.
    static let schedules = ProcessInfo.processInfo.environment["CONVERGENCE_SCHEDULES"].flatMap { Int($0) } ?? 1_000

    @Test func threeDevicesConvergeAndLoseNoWordOverRandomSchedules() throws {
        var conflicted = 0, held = 0, removedThenKept = 0, removed = 0, branches = 0
        for seed in 0..<UInt64(Self.schedules) {
            let outcome = try Self.run(seed: seed)
            Self.receiveOneAtATime(outcome.fleet, seed: seed)
            conflicted += outcome.conflicts > 0 ? 1 : 0
            held += outcome.held
            removedThenKept += outcome.removals > 0 && outcome.shown ? 1 : 0
            removed += outcome.shown ? 0 : 1
            branches += outcome.branches
        }
        // The schedules must exercise what they claim to: conflicts, out-of-order delivery, and
        // removals that stay (edited unseen) as well as removals that remove.
        #expect(conflicted > Self.schedules / 10)
        #expect(held > 0)
        #expect(removedThenKept > 0)
        #expect(removed > 0)
        print("convergence: \(Self.schedules) schedules, \(conflicted) with conflicts, \(removedThenKept) with a removal the document survived, \(removed) removed, \(branches) branches")
    }

    /// One schedule; returns how many conflicts it ended with and how many records were held for parents.
    static func run(seed: UInt64) throws -> (conflicts: Int, held: Int, removals: Int, shown: Bool, branches: Int, fleet: SyncFleet) {
        var generator = SeededGenerator(seed: seed)
        var fleet = try SyncFleet(devices: 3)
        fleet.books = Array(repeating: BranchBook(), count: 3)
        var tracker = WordTracker()
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Case file")
        let first = try (0..<Int.random(in: 1...3, using: &generator)).map { _ in
            Block(id: try BlockID.random(), kind: .paragraph, text: tracker.type(device: 0, count: 2).joined(separator: " "))
        }
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: first))
        fleet.healAll(&generator)
        var linked = Set([[0, 1], [0, 2], [1, 2]])
        var held = 0, removals = 0
        // Every text a device had in each block after each of its edits (no-splice check, F17-1).
        var written: [BlockID: Set<String>] = [:]
        for block in first { written[block.id, default: []].insert(block.text) }
        for _ in 0..<Int.random(in: 8...30, using: &generator) {
            let roll = Int.random(in: 0..<100, using: &generator)
            if roll < 2 {
                // The document removed (what the device showed of it deliberately deleted): words
                // typed meanwhile on a device that had not seen the removal must keep it (§19.3).
                let device = Int.random(in: 0..<3, using: &generator)
                guard fleet.replicas[device].documents.contains(document) else { continue }
                tracker.edited(from: fleet.replicas[device].content(of: document), to: DocumentContent())
                _ = try fleet.replicas[device].commit([.node(document, .removed)])
                removals += 1
            } else if roll < 55 {
                let device = Int.random(in: 0..<3, using: &generator)
                guard fleet.replicas[device].documents.contains(document) else { continue }
                let before = fleet.replicas[device].content(of: document)
                let after = try randomEdit(of: before, device: device, tracker: &tracker, &generator)
                tracker.edited(from: before, to: after)
                _ = try fleet.replicas[device].edit(document, to: after)
                for block in after.blocks { written[block.id, default: []].insert(block.text) }
            } else if roll < 90 {
                let pair = [Int.random(in: 0..<3, using: &generator), Int.random(in: 0..<3, using: &generator)]
                guard pair[0] != pair[1], linked.contains(pair.sorted()) else { continue }
                held += fleet.sync(from: pair[0], to: pair[1], shuffle: &generator, shuffled: Bool.random(using: &generator)).held
            } else {
                let link = [[0, 1], [0, 2], [1, 2]].randomElement(using: &generator)!
                if linked.contains(link) { linked.remove(link) } else { linked.insert(link) }
            }
        }
        fleet.healAll(&generator)
        // A removed document shows nothing (its blocks stay in the records, not in the binder).
        let shown = fleet.replicas[0].documents.contains(document)
        let reference = shown ? fleet.replicas[0].content(of: document) : DocumentContent()
        let conflicts = fleet.replicas[0].conflicts()
        for index in 1..<3 {
            #expect(fleet.replicas[index].documents == fleet.replicas[0].documents, "seed \(seed): device \(index)'s binder differs")
            let content = fleet.replicas[index].documents.contains(document) ? fleet.replicas[index].content(of: document) : DocumentContent()
            #expect(content.canonicalBytes == reference.canonicalBytes, "seed \(seed): device \(index) differs")
            #expect(fleet.replicas[index].conflicts() == conflicts, "seed \(seed): device \(index)'s conflicts differ")
            #expect(fleet.replicas[index].refusals.isEmpty, "seed \(seed): \(fleet.replicas[index].refusals)")
        }
        // No splice: every block shows a text one device had (the merge never mixes two devices' edits).
        for block in reference.blocks where written[block.id]?.contains(block.text) != true {
            Issue.record("seed \(seed): block \(block.id.hex.prefix(8)) shows \(block.text.debugDescription), which no device wrote")
        }
        // Every device made exactly the branches a device given every record at once makes (by
        // conflict id, which is the branch's id in every vault, proposing the same document),
        // whatever it received when, and no other (§19.3: the conflicts are a function of the
        // records held, only growing as they arrive). No branch proposes an empty document.
        let books = fleet.books!
        var atOnce = BranchBook()
        atOnce.keep(&fleet.replicas[0])
        for index in 0..<3 {
            for (id, kept) in atOnce.branches {
                #expect(books[index].branches[id] == kept, "seed \(seed): device \(index)'s branch \(id.hex.prefix(8)): \(books[index].described) vs \(atOnce.described)")
            }
            for (id, kept) in books[index].branches where atOnce.branches[id] == nil {
                Issue.record("seed \(seed): device \(index) made branch \(id.hex.prefix(8)) \(kept.proposal.blocks.map(\.text)), which a device given every record at once does not: \(atOnce.described)")
            }
            // A losing side with words is always in its proposal (block-scoped: the document as shown
            // with the block replaced); a losing delete of a block the document no longer shows may
            // propose nothing, and holds no word.
            for (id, kept) in books[index].branches where kept.losing != .deleted {
                #expect(!kept.proposal.blocks.isEmpty, "seed \(seed): device \(index)'s branch \(id.hex.prefix(8)) proposes an empty document")
            }
        }
        // Kept = what the vault shows: the document, and each conflict's branch (its losing side
        // in its proposal). The winning side is in no branch, so it does not count.
        let kept = WordTracker.words(in: reference.blocks)
            .union(WordTracker.words(in: conflicts.compactMap { $0.losing.block }))
        let lost = tracker.mustSurvive.subtracting(kept)
        #expect(lost.isEmpty, "seed \(seed): words lost: \(lost.sorted()) document \(reference.blocks.map(\.text)) conflicts \(conflicts.map { [$0.losing.block?.text, $0.winning.block?.text] })")
        if shown {
            let inBranches = WordTracker.words(in: books[0].branches.values.flatMap(\.proposal.blocks))
            let lostFromBranches = tracker.mustSurvive.subtracting(WordTracker.words(in: reference.blocks).union(inBranches))
            #expect(lostFromBranches.isEmpty, "seed \(seed): words in no document or branch: \(lostFromBranches.sorted()) branches \(books[0].described)")
        }
        return (conflicts.count, held, removals, shown, atOnce.branches.count, fleet)
    }

    /// The schedule's records given to a fresh replica one at a time, each alone in its exchange,
    /// in a random order that puts parents first: a device passing through many more sets of
    /// records than the schedule's syncs did. It must end with exactly the branches a replica given
    /// every record at once makes (§19.3: each set of records it held makes only conflicts the
    /// whole set makes).
    static func receiveOneAtATime(_ fleet: SyncFleet, seed: UInt64) {
        var fleet = fleet
        var atOnce = BranchBook()
        atOnce.keep(&fleet.replicas[0])
        var replica = SyncReplica(project: fleet.project, author: nil, devices: fleet.replicas[0].devices)
        var book = BranchBook()
        var generator = SeededGenerator(seed: seed &+ 0x5EED)
        var waiting = fleet.replicas[0].records(missingFrom: [:]), held = Set<[UInt8]>()
        while !waiting.isEmpty {
            let ready = waiting.indices.filter { waiting[$0].parents.allSatisfy(held.contains) }
            let record = waiting.remove(at: ready.randomElement(using: &generator)!)
            #expect(replica.receive(record.encoded) == .applied(1), "seed \(seed)")
            held.insert(record.hash)
            replica.endExchange()
            book.keep(&replica)
        }
        #expect(book == atOnce, "seed \(seed): one record at a time \(book.described); at once \(atOnce.described)")
        // The merge points' bound (`MergePointScope`) changes no conflict: a replica folding every
        // block at every merge point makes the same ones from the same records.
        var every = SyncReplica(project: fleet.project, author: nil, devices: fleet.replicas[0].devices)
        every.foldsEveryBlockAtMergePoints = true
        for record in fleet.replicas[0].records(missingFrom: [:]) { every.receive(record.encoded) }
        // (Their own conflicts, not only those the joins' 0x03s record too; in name order, as a
        // removal's come in the order the removals arrived.)
        #expect(Self.byName(every.liveConflicts()) == Self.byName(replica.liveConflicts()), "seed \(seed): the merge points' bound changed the conflicts")
        #expect(every.conflicts() == replica.conflicts(), "seed \(seed)")
        #expect(every.pendingConflicts == replica.pendingConflicts, "seed \(seed)")
    }

    /// Conflicts in name order.
    static func byName(_ held: [HeldConflict]) -> [SyncConflict] {
        held.map(\.conflict).sorted { $0.branch.bytes.lexicographicallyPrecedes($1.branch.bytes) }
    }

    /// A random edit a person might make: a word typed, deleted or replaced, a paragraph added,
    /// deleted or moved.
    static func randomEdit(of content: DocumentContent, device: Int, tracker: inout WordTracker,
                           _ generator: inout SeededGenerator) throws -> DocumentContent {
        var blocks = content.blocks
        let choice = blocks.isEmpty ? 3 : Int.random(in: 0..<6, using: &generator)
        switch choice {
        case 0, 1, 2:
            let index = Int.random(in: blocks.indices, using: &generator)
            var words = blocks[index].text.split(separator: " ").map(String.init)
            let at = Int.random(in: 0...words.count, using: &generator)
            if choice != 0, at < words.count { words.remove(at: at) }
            if choice != 1 { words.insert(contentsOf: tracker.type(device: device, count: 1), at: at) }
            blocks[index].text = words.joined(separator: " ")
        case 3:
            let block = Block(id: try BlockID.random(), kind: .paragraph, text: tracker.type(device: device, count: 2).joined(separator: " "))
            blocks.insert(block, at: Int.random(in: 0...blocks.count, using: &generator))
        case 4:
            blocks.remove(at: Int.random(in: blocks.indices, using: &generator))
        default:
            let block = blocks.remove(at: Int.random(in: blocks.indices, using: &generator))
            blocks.insert(block, at: Int.random(in: 0...blocks.count, using: &generator))
        }
        return DocumentContent(blocks: blocks)
    }
}

/// Every word typed, and every word a device removed from what it showed (a deliberate deletion):
/// the words that must survive are the first less the second. Each typed word is unique.
struct WordTracker {
    private(set) var typed = Set<String>()
    private(set) var deleted = Set<String>()
    private var next = 0

    var mustSurvive: Set<String> { typed.subtracting(deleted) }

    mutating func type(device: Int, count: Int) -> [String] {
        (0..<count).map { _ in
            next += 1
            let word = "d\(device)w\(next)"
            typed.insert(word)
            return word
        }
    }

    mutating func edited(from before: DocumentContent, to after: DocumentContent) {
        deleted.formUnion(Self.words(in: before.blocks).subtracting(Self.words(in: after.blocks)))
    }

    static func words(in blocks: [Block]) -> Set<String> {
        Set(blocks.flatMap { $0.text.split(separator: " ").map(String.init) })
    }
}
