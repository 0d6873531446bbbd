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

    /// (e) Words run together only by a third device's delete, and parted again by a record that
    /// never saw them together (ConvergenceTests' schedules met this, reduced here). In "Allergies:
    /// ;." device 0 types "penicillin" before the ";" and device 1 "latex" after it; device 1, holding
    /// both, types a space after "penicillin"; device 2, having seen neither, deletes the ";". A
    /// device holding the two words and the delete, but not yet the space, shows
    /// "penicillinlatex": the words touched in the text of a set of records a device may hold, so
    /// the pair is a text conflict on every device, whatever arrived first (§19.3), one branch per
    /// side, each word whole. (Before: only the device that met them run together made those two
    /// branches; one given every record at once did not.)
    @Test func wordsRunTogetherByAThirdDevicesDeleteAndPartedAgainAreABranchWhateverArrivedFirst() throws {
        var (fleet, document, blocks, base) = try Self.fleet(3, ["Allergies: ;."])
        var typed = blocks[0]
        typed.text = "Allergies: penicillin;."
        let penicillin = try #require(try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [typed])))
        typed.text = "Allergies: ;latex."
        let latex = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [typed])))
        typed.text = "Allergies: ."
        let deletion = try #require(try fleet.replicas[2].edit(document, to: DocumentContent(blocks: [typed])))
        var generator = SeededGenerator(seed: 5)
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        #expect(fleet.replicas[1].content(of: document).blocks[0].text == "Allergies: penicillin;latex.")
        typed.text = "Allergies: penicillin ;latex."
        let space = try #require(try fleet.replicas[1].edit(document, to: DocumentContent(blocks: [typed])))
        #expect(!space.operations.contains { if case .conflict = $0 { return true } else { return false } })
        // Run together on a device holding the two words and the delete, not the space.
        var runTogether = SyncReplica(project: fleet.project, author: nil, devices: fleet.replicas[0].devices)
        for record in base + [penicillin, latex, deletion] { runTogether.receive(record.encoded) }
        #expect(runTogether.content(of: document).blocks.map(\.text) == ["Allergies: penicillinlatex."])
        let metRunTogether = Self.branches(fleet, base: base, [[penicillin, latex, deletion], [space]])
        let together = Self.branches(fleet, base: base, [[penicillin, latex, deletion, space]])
        let spaceFirst = Self.branches(fleet, base: base, [[penicillin, latex, space], [deletion]])
        #expect(metRunTogether == together, "met run together: \(metRunTogether.described); together: \(together.described)")
        #expect(metRunTogether == spaceFirst, "met run together: \(metRunTogether.described); space first: \(spaceFirst.described)")
        // The pair's own conflict, a branch for each side's word (beside each side's conflict with the delete).
        let pair = [(penicillin, latex), (latex, penicillin)].map { losing, winning in
            SyncConflict.branchID("SealedVault text conflict v1", blocks[0].id.bytes + losing.hash + winning.hash)
        }
        for branch in pair { #expect(together.branches[branch] != nil, "\(together.described)") }
        #expect(together.branches[pair[0]]?.proposal.blocks.map(\.text) == ["Allergies: penicillin;."])
        #expect(together.branches[pair[1]]?.proposal.blocks.map(\.text) == ["Allergies: ;latex."])
        // Judged within a set of records alone (as a 0x03 is, in its record's past): the two
        // records' pasts do not run the words together (the ";" parts them), nor does the space's
        // past; the set with the delete and without the space does.
        var all = SyncReplica(project: fleet.project, author: nil, devices: fleet.replicas[0].devices)
        for record in base + [penicillin, latex, deletion, space] { all.receive(record.encoded) }
        let history = all.history
        let entry = { (record: ChangeRecord) in Int32(history.index[record.hash]!) }
        let precedes = { (x: Int32, y: Int32) in history.precedes(Int(x), Int(y)) }
        let (p, q, parting) = (entry(penicillin), entry(latex), entry(space))
        let text = try #require(all.blockRegister(blocks[0].id)?.text)
        #expect(!text.touch(p, q, within: { precedes($0, p) || precedes($0, q) }, precedes: precedes))
        #expect(!text.touch(p, q, within: { precedes($0, parting) }, precedes: precedes))
        #expect(text.touch(p, q, within: { $0 != parting }, precedes: precedes))
        #expect(text.touchingWords.contains { [$0.0, $0.1].sorted() == [p, q].sorted() })
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
