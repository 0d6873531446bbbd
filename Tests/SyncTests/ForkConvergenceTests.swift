import CryptoVault
import Testing
@testable import Sync
import Writing

/// SECURITY.md §19.4's fork rule over random schedules (review 17 s10, N-s10-1 (a)/(b)): a colleague's
/// device restored from a backup between two writes signs two histories of one number; the owner's
/// devices each take whichever history reached them first and type on it, and records travel in
/// random orders, relayed by any device. After the links heal every device holds the same records
/// and shows the same document; the lower-ranked history stays everywhere; and, each device putting
/// back what a drop took from its document as a vault keeps it in a branch (here: the missing
/// paragraphs written again, the re-commit of (b), reusing the number of its own record that left),
/// no word typed by anyone is lost.
@Suite struct ForkConvergenceTests {
    static let schedules = 40
    static let colleague = 3

    @Test func devicesHoldingEitherHistoryOfAForkConvergeAndLoseNoWord() throws {
        var reused = 0, swapped = 0
        for seed in 0..<UInt64(Self.schedules) {
            let outcome = try Self.run(seed: seed)
            reused += outcome.reusedNumber ? 1 : 0
            swapped += outcome.swapped ? 1 : 0
        }
        // The schedules exercise what they claim: a held history given up for the other, and an own
        // device's re-commit taking the number of its record that left.
        #expect(swapped > Self.schedules / 5, "\(swapped)")
        #expect(reused > Self.schedules / 10, "\(reused)")
        print("fork convergence: \(Self.schedules) schedules, \(swapped) with a held history given up, \(reused) with a re-commit reusing a number")
    }

    /// Reviewer 12's fk3: a colleague puts one old copy back again and again, each time signing a
    /// different record of one number. Before, each variant that ranked lower took the document's place
    /// (the shown text flipped with each, and each flip made a sync-conflict branch on every own device).
    /// Now (SECURITY.md §19.4) a number signed three times or more keeps only a copy an own device built
    /// on: in every order the owner's devices end with the same text, drops change it at most twice on
    /// each device (so at most two fork branches per document), and once the owner wrote on a variant,
    /// that variant stays whatever comes after.
    @Test(arguments: [false, true])
    func aColleagueSigningOneNumberAgainAndAgainChangesTheOwnersDocumentAtMostTwice(ownerWritesOnTheFirst: Bool) throws {
        var generator = SeededGenerator(seed: ownerWritesOnTheFirst ? 7 : 3)
        var fleet = try SyncFleet(devices: 3, colleagues: [2])
        let (document, _) = try fleet.replicas[2].createDocument(titled: "Notes")
        _ = try fleet.replicas[2].edit(document, to: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "First words.")]))
        fleet.healAll(&generator)
        let base = fleet.replicas.map { $0 }
        let backup = fleet.replicas[2]
        var variants: [ChangeRecord] = []
        for index in 1...4 {
            fleet.replicas[2] = backup
            var blocks = fleet.replicas[2].content(of: document).blocks
            blocks.append(Block(id: try BlockID.random(), kind: .paragraph, text: "Colleague variant \(index)."))
            variants.append(try #require(try fleet.replicas[2].edit(document, to: DocumentContent(blocks: blocks))))
        }
        #expect(Set(variants.map(\.counter)).count == 1 && Set(variants.map(\.hash)).count == 4)
        var finals: [[UInt8]] = []
        for _ in 0..<6 {
            var desk = base[0], laptop = base[1]
            let order = variants.shuffled(using: &generator)
            // A drop that changes what the document shows is what makes a fork branch (VaultSync.receive).
            var flips = 0, ownRecord: ChangeRecord?
            for (index, variant) in order.enumerated() {
                let before = desk.content(of: document).canonicalBytes, droppedBefore = desk.droppedRecords
                desk.receive(variant.encoded)
                desk.endExchange()
                if !desk.droppedRecords.subtracting(droppedBefore).isEmpty && desk.content(of: document).canonicalBytes != before { flips += 1 }
                if index == 0 && ownerWritesOnTheFirst {
                    var blocks = desk.content(of: document).blocks
                    blocks.append(Block(id: try BlockID.random(), kind: .paragraph, text: "Owner words on the first."))
                    ownRecord = try desk.edit(document, to: DocumentContent(blocks: blocks))
                }
            }
            let text = desk.content(of: document).blocks.map(\.text).joined(separator: " ")
            if ownerWritesOnTheFirst {
                #expect(flips == 0, "the document changed after the owner wrote: \(flips)")
                #expect(text.contains("Owner words on the first.") && text.contains("Colleague variant"), "\(text)")
            } else {
                #expect(flips >= 1 && flips <= 2, "drops changed the document \(flips) times")
                #expect(text == "First words.", "\(text)")
            }
            // The laptop takes the same records in another order, and the desk's own: the same text.
            for record in (variants + (ownRecord.map { [$0] } ?? [])).shuffled(using: &generator) { laptop.receive(record.encoded) }
            laptop.endExchange()
            #expect(laptop.content(of: document).canonicalBytes == desk.content(of: document).canonicalBytes)
            #expect(desk.refusals.allSatisfy { $0.error.code == .equivocation }, "\(desk.refusals.map(\.error.message))")
            finals.append(laptop.content(of: document).canonicalBytes)
        }
        if !ownerWritesOnTheFirst { #expect(Set(finals).count == 1) }
    }

    /// One schedule of three own devices (0, 1, 2) and the colleague's (3).
    static func run(seed: UInt64) throws -> (reusedNumber: Bool, swapped: Bool) {
        var generator = SeededGenerator(seed: seed)
        var fleet = try SyncFleet(devices: 4, colleagues: [Self.colleague])
        var typed: [String] = [], next = 0
        func words(_ device: Int) -> String {
            next += 1
            let word = "d\(device)w\(next)"
            typed.append(word)
            return word
        }
        let (document, _) = try fleet.replicas[Self.colleague].createDocument(titled: "Case")
        _ = try fleet.replicas[Self.colleague].edit(document, to: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: words(3))]))
        var state = Schedule(fleet: fleet, document: document)
        state.healAll(&generator)

        // The colleague's backup; its first history reaches one or two own devices, then its disk dies.
        let backup = state.fleet.replicas[Self.colleague]
        try state.append(words(3), on: Self.colleague, &generator)
        if Bool.random(using: &generator) { try state.append(words(3), on: Self.colleague, &generator) }
        let first = state.fleet.replicas[Self.colleague].records(missingFrom: backup.versionVector)
        for device in (0..<3).shuffled(using: &generator).prefix(Int.random(in: 1...2, using: &generator)) {
            state.deliver(first.shuffled(using: &generator), to: device, &generator)
        }
        // Restored from the backup, it writes on: the same numbers, another history.
        state.fleet.replicas[Self.colleague] = backup
        state.restored = true
        try state.append(words(3), on: Self.colleague, &generator)
        for _ in 0..<Int.random(in: 10...30, using: &generator) {
            let roll = Int.random(in: 0..<100, using: &generator)
            let device = Int.random(in: 0..<4, using: &generator)
            if roll < 40 {
                try state.append(words(device), on: device, &generator)
            } else if roll < 50 {
                state.deliver(first.shuffled(using: &generator), to: Int.random(in: 0..<3, using: &generator), &generator)
            } else {
                let other = Int.random(in: 0..<4, using: &generator)
                guard other != device else { continue }
                try state.sync(from: device, to: other, &generator)
            }
        }
        state.healAll(&generator)

        let reference = state.fleet.replicas[0]
        let held = Set(reference.records(missingFrom: [:]).map(\.hash))
        let content = state.fleet.replicas[0].content(of: document)
        for index in 1..<4 {
            #expect(Set(state.fleet.replicas[index].records(missingFrom: [:]).map(\.hash)) == held, "seed \(seed): device \(index) holds other records")
            #expect(state.fleet.replicas[index].content(of: document).canonicalBytes == content.canonicalBytes, "seed \(seed): device \(index) shows another document")
        }
        // One of the colleague's two records of that number stays, on every device (which one: the
        // rule's walk, replayed record by record in MergeKnownAnswerTests).
        let rivals = [first.first!.hash] + [state.colleagueSecondHistory?.hash].compactMap { $0 }
        #expect(rivals.count == 2 && rivals.filter(held.contains).count == 1, "seed \(seed)")
        let text = content.blocks.map(\.text).joined(separator: " ")
        for word in typed { #expect(text.contains(word), "seed \(seed): \(word) is lost") }
        // Only forks are refused (and a record a remake took back before its turn in the same batch
        // came: replayedRecord); never missingParents, causalityViolation or a malformed record.
        for replica in state.fleet.replicas {
            let codes = Set(replica.refusals.map(\.error.code))
            #expect(codes.isSubset(of: [.equivocation, .replayedRecord]), "seed \(seed): \(replica.refusals.map(\.error.message))")
        }
        return (state.reusedNumber, state.swapped)
    }

    /// The fleet as vaults would run it: every exchange ends (`endExchange`), and a device whose
    /// document a drop changed puts back the paragraphs it lost (what its vault keeps in a branch,
    /// adopted: a commit on the winner).
    struct Schedule {
        var fleet: SyncFleet
        let document: NodeID
        var reusedNumber = false, swapped = false
        var colleagueSecondHistory: ChangeRecord?
        var restored = false

        init(fleet: SyncFleet, document: NodeID) {
            self.fleet = fleet
            self.document = document
        }

        mutating func append(_ word: String, on device: Int, _ generator: inout SeededGenerator) throws {
            guard fleet.replicas[device].documents.contains(document) else { return }
            var blocks = fleet.replicas[device].content(of: document).blocks
            let at = Int.random(in: 0...blocks.count, using: &generator)
            blocks.insert(Block(id: try BlockID.random(), kind: .paragraph, text: word), at: at)
            let record = try fleet.replicas[device].edit(document, to: DocumentContent(blocks: blocks))
            if device == ForkConvergenceTests.colleague, restored, colleagueSecondHistory == nil, let record {
                colleagueSecondHistory = record
            }
        }

        /// Every record `from` holds that `to` lacks, by hash (the exchange's vectors and tips find
        /// at least these), parents first or shuffled.
        mutating func sync(from: Int, to: Int, _ generator: inout SeededGenerator) throws {
            let held = fleet.replicas[to]
            let records = fleet.replicas[from].records(missingFrom: [:]).filter { !held.contains($0.hash) }
            try receive(Bool.random(using: &generator) ? records.shuffled(using: &generator) : records, on: to)
        }

        mutating func deliver(_ records: [ChangeRecord], to device: Int, _ generator: inout SeededGenerator) {
            try? receive(records.filter { !fleet.replicas[device].contains($0.hash) }, on: device)
        }

        mutating func receive(_ records: [ChangeRecord], on device: Int) throws {
            guard !records.isEmpty else { return }
            let before = fleet.replicas[device].content(of: document)
            let own = fleet.replicas[device].author!.device
            let ownBefore = fleet.replicas[device].records(missingFrom: [:]).filter { $0.device == own }
            let droppedBefore = fleet.replicas[device].droppedRecords
            for record in records { fleet.replicas[device].receive(record.encoded) }
            fleet.replicas[device].endExchange()
            let left = fleet.replicas[device].droppedRecords.subtracting(droppedBefore)
            guard !left.isEmpty, fleet.replicas[device].documents.contains(document) else { return }
            if ownBefore.contains(where: { left.contains($0.hash) }) || !left.isSubset(of: Set(records.map(\.hash))) { swapped = true }
            // What the drop took from the document: written again on what the device now holds.
            var blocks = fleet.replicas[device].content(of: document).blocks
            let shown = Set(blocks.map(\.id))
            for (index, block) in before.blocks.enumerated() where !shown.contains(block.id) {
                blocks.insert(block, at: min(index, blocks.count))
            }
            guard let record = try fleet.replicas[device].edit(document, to: DocumentContent(blocks: blocks)) else { return }
            if ownBefore.contains(where: { $0.counter == record.counter && $0.hash != record.hash }) { reusedNumber = true }
        }

        /// Every pair both ways, until a round changes nothing (re-commits may follow a drop).
        mutating func healAll(_ generator: inout SeededGenerator) {
            for _ in 0..<12 {
                let before = fleet.replicas.map { $0.records(missingFrom: [:]).count }
                for from in fleet.replicas.indices {
                    for to in fleet.replicas.indices where to != from { try? sync(from: from, to: to, &generator) }
                }
                let held = fleet.replicas.map { Set($0.records(missingFrom: [:]).map(\.hash)) }
                if held.allSatisfy({ $0 == held[0] }), before == fleet.replicas.map({ $0.records(missingFrom: [:]).count }) { return }
            }
        }
    }
}
