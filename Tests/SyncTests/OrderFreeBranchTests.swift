import CryptoVault
import Testing
@testable import Sync
import Writing

/// The syncConflict branches are a function of the records held, whatever order they arrived in
/// (issue 17, SECURITY.md §19.3): a device receiving the same records in other exchanges makes the
/// same branches (by conflict id) proposing the same documents. Each case hands one set of records
/// to a receiving replica in two ways, keeping branches as a vault does at the end of each exchange
/// (`BranchBook`).
@Suite struct OrderFreeBranchTests {
    /// `devices` devices holding one document of these paragraphs, in sync; the records so far.
    static func fleet(_ devices: Int, _ texts: [String]) throws -> (SyncFleet, NodeID, [Block], [ChangeRecord]) {
        var fleet = try SyncFleet(devices: devices)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Session note")
        let blocks = try texts.map { Block(id: try BlockID.random(), kind: .paragraph, text: $0) }
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: blocks))
        var generator = SeededGenerator(seed: 1)
        fleet.healAll(&generator)
        return (fleet, document, blocks, fleet.replicas[0].records(missingFrom: [:]))
    }

    /// Device 1 moves the first paragraph after the third, device 2 to the end: both move that
    /// block (the other three keep their order, so their keys), to different places.
    static func moveFirstBlock(_ fleet: inout SyncFleet, _ document: NodeID, _ blocks: [Block]) throws -> (ChangeRecord, ChangeRecord) {
        let first = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [blocks[1], blocks[2], blocks[0], blocks[3]])))
        let second = try #require(try fleet.replicas[2].edit(document, to: DocumentContent(blocks: [blocks[1], blocks[2], blocks[3], blocks[0]])))
        #expect(first.operations.count == 1 && second.operations.count == 1)
        return (first, second)
    }

    /// A receiving replica given `base`, then each exchange in turn: the branches it made.
    static func branches(_ fleet: SyncFleet, base: [ChangeRecord], _ exchanges: [[ChangeRecord]]) -> BranchBook {
        var replica = SyncReplica(project: fleet.project, author: nil, devices: fleet.replicas[0].devices)
        var book = BranchBook()
        for exchange in [base] + exchanges {
            for record in exchange { replica.receive(record.encoded) }
            replica.endExchange()
            book.keep(&replica)
        }
        #expect(replica.refusals.isEmpty)
        return book
    }

    /// (a) A branch proposes the document as its losing side saw it, not as the document stood
    /// when the conflict was met: a paragraph added meanwhile on a third device is in neither.
    @Test func aBranchsOtherBlocksDoNotDependOnWhatHadArrived() throws {
        var (fleet, document, blocks, base) = try Self.fleet(3, ["one", "two", "three", "four"])
        let (first, second) = try Self.moveFirstBlock(&fleet, document, blocks)
        let added = Block(id: try BlockID.random(), kind: .paragraph, text: "five")
        let addition = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: blocks + [added])))
        let movesFirst = Self.branches(fleet, base: base, [[first], [second], [addition]])
        let additionFirst = Self.branches(fleet, base: base, [[addition], [first], [second]])
        #expect(!movesFirst.branches.isEmpty)
        #expect(movesFirst == additionFirst, "moves first: \(movesFirst.described); addition first: \(additionFirst.described)")
        for kept in movesFirst.branches.values { #expect(!kept.proposal.blocks.map(\.text).contains("five")) }
    }

    /// (b) Two concurrent moves of one block are a conflict for good: a device that receives them
    /// together with the move resolving them (never holding both as heads) makes the same branches
    /// as one that met them one by one.
    @Test func aConflictResolvedBeforeItArrivedIsStillABranch() throws {
        var (fleet, document, blocks, base) = try Self.fleet(3, ["one", "two", "three", "four"])
        let (first, second) = try Self.moveFirstBlock(&fleet, document, blocks)
        // Device 2 moves it back to the front; device 1, holding all three moves, puts it second.
        let back = try #require(try fleet.replicas[2].edit(document, to: DocumentContent(blocks: blocks)))
        var generator = SeededGenerator(seed: 2)
        fleet.sync(from: 2, to: 1, shuffle: &generator)
        let settled = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [blocks[1], blocks[0], blocks[2], blocks[3]])))
        let oneByOne = Self.branches(fleet, base: base, [[first], [second], [back, settled]])
        let together = Self.branches(fleet, base: base, [[first, second, back, settled]])
        #expect(!oneByOne.branches.isEmpty)
        #expect(oneByOne == together, "one by one: \(oneByOne.described); together: \(together.described)")
    }

    /// (d) Words typed at one point on two devices touch ("penicillinlatex"); a third device,
    /// holding both, parts them with a space and commits no 0x03. The words touched in the text of
    /// the two records' pasts, so the conflict is one for good (§19.3): a device that receives the
    /// typing first and one that receives all three records at once make the same branches, one per
    /// side, each word whole in its side's.
    @Test func touchingWordsPartedAgainAreABranchWhateverArrivedFirst() throws {
        var (fleet, document, blocks, base) = try Self.fleet(3, ["Allergies: ."])
        var first = blocks[0], second = blocks[0]
        first.text = "Allergies: penicillin."
        second.text = "Allergies: latex."
        let penicillin = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [first])))
        let latex = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [second])))
        var generator = SeededGenerator(seed: 3)
        fleet.sync(from: 0, to: 2, shuffle: &generator)
        fleet.sync(from: 1, to: 2, shuffle: &generator)
        let touching = fleet.replicas[2].content(of: document).blocks[0].text
        #expect(touching == "Allergies: penicillinlatex." || touching == "Allergies: latexpenicillin.", "\(touching)")
        var parted = blocks[0]
        parted.text = touching.replacingOccurrences(of: "nl", with: "n l").replacingOccurrences(of: "xp", with: "x p")
        // Committed without the conflicts it holds: as a device that never recorded them.
        let operations = try fleet.replicas[2].operations(making: document, hold: DocumentContent(blocks: [parted]))
        let parting = try fleet.replicas[2].commit(operations, carryingConflicts: false)
        #expect(!parting.operations.contains { if case .conflict = $0 { return true } else { return false } })
        let typingFirst = Self.branches(fleet, base: base, [[penicillin, latex], [parting]])
        let together = Self.branches(fleet, base: base, [[penicillin, latex, parting]])
        let partingWithOne = Self.branches(fleet, base: base, [[penicillin], [latex, parting]])
        #expect(typingFirst.branches.count == 2, "\(typingFirst.described)")
        #expect(typingFirst == together, "typing first: \(typingFirst.described); together: \(together.described)")
        #expect(typingFirst == partingWithOne, "typing first: \(typingFirst.described); one, then the rest: \(partingWithOne.described)")
        #expect(Set(typingFirst.branches.values.map { $0.proposal.blocks.map(\.text) }) == [["Allergies: penicillin."], ["Allergies: latex."]])
    }

    /// (c) A deleted side never proposes an empty document: the only paragraph deleted on one
    /// device while another edits it (the edit ranking higher) proposes the paragraph as the
    /// deleting device last saw it, in either order.
    @Test func aDeletedSideOfAOneBlockDocumentKeepsItsText() throws {
        var (fleet, document, blocks, base) = try Self.fleet(2, ["intake notes"])
        let deletion = try #require(try fleet.replicas[0].edit(document, to: DocumentContent()))
        var edited = blocks[0]
        edited.text = "intake notes, more"
        let edit = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [edited])))
        edited.text = "intake notes, more and more"
        let later = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [edited])))
        let deletionFirst = Self.branches(fleet, base: base, [[deletion], [edit], [later]])
        let editsFirst = Self.branches(fleet, base: base, [[edit, later], [deletion]])
        #expect(deletionFirst == editsFirst, "deletion first: \(deletionFirst.described); edits first: \(editsFirst.described)")
        #expect(!deletionFirst.branches.isEmpty)
        for kept in deletionFirst.branches.values {
            #expect(!kept.proposal.blocks.isEmpty, "an empty branch: \(deletionFirst.described)")
        }
        #expect(deletionFirst.branches.values.contains { $0.proposal.blocks.map(\.text) == ["intake notes"] }, "\(deletionFirst.described)")
    }
}
