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
        // Each test lists the records it delivers, joins included (`join`).
        fleet.joins = false
        return (fleet, document, blocks, fleet.replicas[0].records(missingFrom: [:]))
    }

    /// Device `device` receives `records` and joins them, as the vault does on receive: the
    /// conflicts met become facts of its join's merge point (SECURITY.md §19.3). Its join records.
    static func join(_ fleet: inout SyncFleet, on device: Int, receiving records: [ChangeRecord]) throws -> [ChangeRecord] {
        for record in records { fleet.replicas[device].receive(record.encoded) }
        let joins = try fleet.replicas[device].commitJoin()
        #expect(!joins.isEmpty)
        return joins
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

    /// (a) A branch's conflict (name, block, losing value) does not depend on what had arrived; its
    /// proposal is the document as shown with the block where the losing side put it (block-scoped).
    @Test func aBranchsOtherBlocksDoNotDependOnWhatHadArrived() throws {
        var (fleet, document, blocks, base) = try Self.fleet(3, ["one", "two", "three", "four"])
        let (first, second) = try Self.moveFirstBlock(&fleet, document, blocks)
        let added = Block(id: try BlockID.random(), kind: .paragraph, text: "five")
        let addition = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: blocks + [added])))
        let joins = try Self.join(&fleet, on: 0, receiving: [first, second])
        let movesFirst = Self.branches(fleet, base: base, [[first], [second], [addition] + joins])
        let additionFirst = Self.branches(fleet, base: base, [[addition], [first], [second] + joins])
        #expect(!movesFirst.branches.isEmpty)
        #expect(movesFirst == additionFirst, "moves first: \(movesFirst.described); addition first: \(additionFirst.described)")
        // Block-scoped (merge-design §2): the document as shown, the moved block where the losing side put it.
        for kept in movesFirst.branches.values { #expect(kept.proposal.blocks.map(\.text).contains("five")) }
    }

    /// (b) Two concurrent moves of one block, met at a merge point (a device's join), are a
    /// conflict for good: a device that receives them together with the move resolving them (never
    /// holding both as heads) makes the same branches as one that met them one by one.
    @Test func aConflictResolvedBeforeItArrivedIsStillABranch() throws {
        var (fleet, document, blocks, base) = try Self.fleet(3, ["one", "two", "three", "four"])
        let (first, second) = try Self.moveFirstBlock(&fleet, document, blocks)
        // Device 2 meets the first move (its join makes the conflict a fact) and moves the block back
        // to the front; device 1, holding all three moves, puts it second.
        let joins = try Self.join(&fleet, on: 2, receiving: [first])
        let back = try #require(try fleet.replicas[2].edit(document, to: DocumentContent(blocks: blocks)))
        var generator = SeededGenerator(seed: 2)
        fleet.sync(from: 2, to: 1, shuffle: &generator)
        let settled = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [blocks[1], blocks[0], blocks[2], blocks[3]])))
        let oneByOne = Self.branches(fleet, base: base, [[first], [second], joins + [back, settled]])
        let together = Self.branches(fleet, base: base, [[first, second] + joins + [back, settled]])
        #expect(!oneByOne.branches.isEmpty)
        #expect(oneByOne == together, "one by one: \(oneByOne.described); together: \(together.described)")
    }

    /// (d) Words typed at one point on two devices ("Allergies: ." made "Allergies: penicillin." and
    /// "Allergies: latex."): the block changed on both, so it is one conflict (the merge rule v2,
    /// merge-design §1.3, F17-1), whatever arrived first; the document shows one side's whole text,
    /// never "penicillinlatex", and the branch holds the other side's.
    @Test func wordsTypedAtOnePointAreOneConflictWhateverArrivedFirst() throws {
        var (fleet, document, blocks, base) = try Self.fleet(3, ["Allergies: ."])
        var first = blocks[0], second = blocks[0]
        first.text = "Allergies: penicillin."
        second.text = "Allergies: latex."
        let penicillin = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [first])))
        let latex = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [second])))
        let joins = try Self.join(&fleet, on: 2, receiving: [penicillin, latex])
        let shown = fleet.replicas[2].content(of: document).blocks[0].text
        #expect(shown == "Allergies: penicillin." || shown == "Allergies: latex.", "\(shown)")
        let oneByOne = Self.branches(fleet, base: base, [[penicillin], [latex] + joins])
        let together = Self.branches(fleet, base: base, [[penicillin, latex] + joins])
        #expect(oneByOne.branches.count == 1, "\(oneByOne.described)")
        #expect(oneByOne == together, "one by one: \(oneByOne.described); together: \(together.described)")
        let losing = try #require(oneByOne.branches.values.first).proposal.blocks.map(\.text)
        #expect(Set([losing, [shown]]) == [["Allergies: penicillin."], ["Allergies: latex."]])
    }

    /// (e) Three devices change one block ("Allergies: ;."): two type words on either side of the
    /// ";", a third deletes it; the second then types on, holding the first's word. Whatever
    /// arrived first, every device makes the same conflicts, and no block shows words of two
    /// devices' concurrent edits run together.
    @Test func threeDevicesEditsOfOneBlockMakeTheSameConflictsWhateverArrivedFirst() throws {
        var (fleet, document, blocks, base) = try Self.fleet(3, ["Allergies: ;."])
        var typed = blocks[0]
        typed.text = "Allergies: penicillin;."
        let penicillin = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [typed])))
        typed.text = "Allergies: ;latex."
        let latex = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [typed])))
        typed.text = "Allergies: ."
        let deletion = try #require(try fleet.replicas[2].edit(document, to: DocumentContent(blocks: [typed])))
        let joins = try Self.join(&fleet, on: 1, receiving: [penicillin])
        let met = fleet.replicas[1].content(of: document).blocks[0].text
        #expect(met == "Allergies: penicillin;." || met == "Allergies: ;latex.", "\(met)")
        typed.text = met + " more"
        let more = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [typed])))
        let first = Self.branches(fleet, base: base, [[penicillin, latex, deletion], joins + [more]])
        let together = Self.branches(fleet, base: base, [[penicillin, latex, deletion] + joins + [more]])
        let moreFirst = Self.branches(fleet, base: base, [[penicillin, latex] + joins + [more], [deletion]])
        #expect(first == together, "first: \(first.described); together: \(together.described)")
        #expect(first == moreFirst, "first: \(first.described); more first: \(moreFirst.described)")
        var all = SyncReplica(project: fleet.project, author: nil, devices: fleet.replicas[0].devices)
        for record in base + [penicillin, latex, deletion] + joins + [more] { all.receive(record.encoded) }
        let shown = all.content(of: document).blocks.map(\.text)
        #expect(shown == ["Allergies: ."] || shown == [met + " more"], "\(shown)")
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
        let joins = try Self.join(&fleet, on: 1, receiving: [deletion])
        let deletionFirst = Self.branches(fleet, base: base, [[deletion], [edit], [later] + joins])
        let editsFirst = Self.branches(fleet, base: base, [[edit, later], [deletion] + joins])
        #expect(deletionFirst == editsFirst, "deletion first: \(deletionFirst.described); edits first: \(editsFirst.described)")
        #expect(!deletionFirst.branches.isEmpty)
        for kept in deletionFirst.branches.values {
            #expect(!kept.proposal.blocks.isEmpty, "an empty branch: \(deletionFirst.described)")
        }
        #expect(deletionFirst.branches.values.contains { $0.proposal.blocks.map(\.text) == ["intake notes"] }, "\(deletionFirst.described)")
    }
}
