import CryptoVault
import Testing
@testable import Sync
import Writing

/// The merge rule of block conflicts v2 (merge-design §1, reviewer s17 F17-1 and F17-2): a block
/// changed on two devices since their common ancestor keeps ONE side whole in the document and puts
/// the other in a conflict, never a splice of the two; conflicts are facts of merge points
/// (records of two or more parents), pending until a device that writes joins.
@Suite struct MergeRuleTests {
    /// Two devices holding one document of one block `text`, in sync, and the block.
    static func twoDevices(_ text: String) throws -> (fleet: SyncFleet, document: NodeID, block: Block) {
        var fleet = try SyncFleet(devices: 2)
        var generator = SeededGenerator(seed: 18)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Med")
        let block = Block(id: try BlockID.random(), kind: .paragraph, text: text)
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [block]))
        fleet.healAll(&generator)
        return (fleet, document, block)
    }

    /// Device `device` writes the block as `text`.
    @discardableResult
    static func write(_ text: String, on device: Int, _ fleet: inout SyncFleet, _ document: NodeID, _ block: Block) throws -> ChangeRecord {
        var edited = block
        edited.text = text
        return try #require(try fleet.replicas[device].edit(document, to: DocumentContent(blocks: [edited])))
    }

    /// Both devices edit the block concurrently and sync both ways (joining, as the vault does):
    /// both show one of the two texts whole, one conflict, its losing side the other text.
    static func expectOneSideWhole(_ first: String, _ second: String, from base: String) throws {
        var (fleet, document, block) = try twoDevices(base)
        try write(first, on: 0, &fleet, document, block)
        try write(second, on: 1, &fleet, document, block)
        var generator = SeededGenerator(seed: 1)
        fleet.healAll(&generator)
        let shown = fleet.replicas[0].content(of: document).blocks.map(\.text)
        #expect(fleet.replicas[1].content(of: document).canonicalBytes == fleet.replicas[0].content(of: document).canonicalBytes)
        #expect(shown == [first] || shown == [second], "the document shows \(shown), which no device wrote")
        let conflicts = fleet.replicas[0].conflicts()
        #expect(conflicts.count == 1, "\(conflicts.count) conflicts")
        #expect(fleet.replicas[1].conflicts() == conflicts)
        let other = shown == [first] ? second : first
        #expect(conflicts.first?.losing.block?.text == other, "losing side \(String(describing: conflicts.first?.losing.block?.text))")
        #expect(conflicts.first?.winning.block?.text == shown.first)
        #expect(fleet.replicas[0].pendingConflicts.isEmpty)
    }

    /// F17-1: "5 mg" made "10 mg" on one device and "7.5 mg" on the other: never "107.5 mg".
    @Test func aValueChangedOnBothDevicesShowsOneSideWhole() throws {
        try Self.expectOneSideWhole("Dose is 10 mg.", "Dose is 7.5 mg.", from: "Dose is 5 mg.")
    }

    /// F17-2: edits of one block that neither overlap nor touch ("twice" → "once" on one, "5" →
    /// "10" on the other) are a conflict too, not a silent "Take 10 mg once daily.".
    @Test func editsOfOneBlockThatDoNotTouchAreAConflictNotASilentMerge() throws {
        try Self.expectOneSideWhole("Take 5 mg once daily.", "Take 10 mg twice daily.", from: "Take 5 mg twice daily.")
    }

    /// Two devices that made the same change (different characters, equal strings) agree: no conflict.
    @Test func theSameTextOnBothDevicesIsNoConflict() throws {
        var (fleet, document, block) = try Self.twoDevices("Dose is 5 mg.")
        try Self.write("Dose is 10 mg.", on: 0, &fleet, document, block)
        try Self.write("Dose is 10 mg.", on: 1, &fleet, document, block)
        var generator = SeededGenerator(seed: 2)
        fleet.healAll(&generator)
        for replica in fleet.replicas.indices {
            #expect(fleet.replicas[replica].content(of: document).blocks.map(\.text) == ["Dose is 10 mg."])
            #expect(fleet.replicas[replica].conflicts().isEmpty)
            #expect(fleet.replicas[replica].pendingConflicts.isEmpty)
        }
    }

    /// A replica that received both sides and has not joined shows the winner and holds the
    /// conflict as pending, not as a fact; its join (a record naming both heads) makes it one.
    @Test func aPendingConflictBecomesAFactWithTheJoin() throws {
        var (fleet, document, block) = try Self.twoDevices("Dose is 5 mg.")
        let ten = try Self.write("Dose is 10 mg.", on: 0, &fleet, document, block)
        try Self.write("Dose is 7.5 mg.", on: 1, &fleet, document, block)
        #expect(fleet.replicas[1].receive(ten.encoded) == .applied(1))
        let shown = fleet.replicas[1].content(of: document).blocks.map(\.text)
        #expect(shown == ["Dose is 10 mg."] || shown == ["Dose is 7.5 mg."], "\(shown)")
        #expect(fleet.replicas[1].conflicts().isEmpty)
        let pending = fleet.replicas[1].pendingConflicts
        #expect(pending.count == 1)
        let joins = try fleet.replicas[1].commitJoin()
        #expect(joins.count == 1)
        #expect(joins.first?.parents.count == 2)
        #expect(joins.first?.version == 2)
        #expect(fleet.replicas[1].conflicts() == pending)
        #expect(fleet.replicas[1].pendingConflicts.isEmpty)
        #expect(try fleet.replicas[1].commitJoin().isEmpty)
        #expect(fleet.replicas[1].content(of: document).blocks.map(\.text) == shown)
    }

    /// Both devices receive the other's edit and join at once; their joins cross. Each block's
    /// heads are unchanged by joins, so nothing is pending and there is no further join.
    @Test func twoJoinsOfOneMergeMakeNoFurtherJoin() throws {
        var (fleet, document, block) = try Self.twoDevices("Dose is 5 mg.")
        let ten = try Self.write("Dose is 10 mg.", on: 0, &fleet, document, block)
        let seven = try Self.write("Dose is 7.5 mg.", on: 1, &fleet, document, block)
        #expect(fleet.replicas[0].receive(seven.encoded) == .applied(1))
        #expect(fleet.replicas[1].receive(ten.encoded) == .applied(1))
        let joins = try [fleet.replicas[0].commitJoin(), fleet.replicas[1].commitJoin()]
        #expect(joins.map(\.count) == [1, 1])
        for record in joins[1] { #expect(fleet.replicas[0].receive(record.encoded) == .applied(1)) }
        for record in joins[0] { #expect(fleet.replicas[1].receive(record.encoded) == .applied(1)) }
        for replica in fleet.replicas.indices {
            #expect(fleet.replicas[replica].pendingConflicts.isEmpty)
            #expect(try fleet.replicas[replica].commitJoin().isEmpty)
            #expect(fleet.replicas[replica].conflicts().count == 1)
        }
        #expect(fleet.replicas[0].conflicts() == fleet.replicas[1].conflicts())
        #expect(fleet.replicas[0].content(of: document).canonicalBytes == fleet.replicas[1].content(of: document).canonicalBytes)
    }

    /// A write the losing device made before it received (concurrent with the winner) meets the
    /// winner at the next merge point: it ranks higher, so the document shows it from then on and
    /// the winner's side goes to a new conflict, named by the winner's write (merge-design §1.8).
    @Test func aLateLosersWriteThatRanksHigherFlipsTheWinnerWithANewConflict() throws {
        var fleet = try SyncFleet(devices: 3)
        var generator = SeededGenerator(seed: 4)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Med")
        let block = Block(id: try BlockID.random(), kind: .paragraph, text: "Dose is 5 mg.")
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [block]))
        fleet.healAll(&generator)
        // Device 1's write ranks above device 0's first (a later Lamport time), below its third.
        _ = try fleet.replicas[1].createDocument(titled: "Other")
        let winner = try Self.write("Dose is 20 mg.", on: 1, &fleet, document, block)
        let early = try Self.write("Dose is 10 mg.", on: 0, &fleet, document, block)
        fleet.sync(from: 0, to: 2, shuffle: &generator)
        fleet.sync(from: 1, to: 2, shuffle: &generator)
        #expect(fleet.replicas[2].content(of: document).blocks.map(\.text) == ["Dose is 20 mg."])
        let name = { (record: ChangeRecord) in SyncConflict.branchID("SealedVault block conflict v2", block.id.bytes + record.hash) }
        #expect(fleet.replicas[2].conflicts().map(\.branch) == [name(early)])
        // Device 0 writes on, unaware: its third write ranks above device 1's.
        try Self.write("Dose is 12 mg.", on: 0, &fleet, document, block)
        try Self.write("Dose is 15 mg.", on: 0, &fleet, document, block)
        fleet.sync(from: 0, to: 2, shuffle: &generator)
        #expect(fleet.replicas[2].content(of: document).blocks.map(\.text) == ["Dose is 15 mg."])
        let conflicts = fleet.replicas[2].conflicts()
        #expect(Set(conflicts.map(\.branch)) == [name(early), name(winner)])
        #expect(conflicts.first { $0.branch == name(winner) }?.losing.block?.text == "Dose is 20 mg.")
        #expect(conflicts.first { $0.branch == name(early) }?.losing.block?.text == "Dose is 10 mg.")
        fleet.healAll(&generator)
        for replica in fleet.replicas.indices {
            #expect(fleet.replicas[replica].content(of: document).blocks.map(\.text) == ["Dose is 15 mg."])
            #expect(fleet.replicas[replica].conflicts() == fleet.replicas[2].conflicts())
        }
    }

    /// A delete marks only the characters in its device's view: a delete over characters the
    /// conflict hid there (the losing side's) leaves them unmarked, so the losing side's text stays
    /// whole in the records (merge-design §1.4), and the document shows the deleting device's text.
    @Test func aDeleteOverCharactersAConflictHidMarksOnlyTheView() throws {
        var (fleet, document, block) = try Self.twoDevices("abc def")
        // Device 1's write ranks above device 0's (a later Lamport time): device 1 shows its own.
        _ = try fleet.replicas[1].createDocument(titled: "Other")
        let hidden = try Self.write("abc XYZ def", on: 0, &fleet, document, block)
        try Self.write("abc def ghi", on: 1, &fleet, document, block)
        var generator = SeededGenerator(seed: 5)
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        #expect(fleet.replicas[1].content(of: document).blocks.map(\.text) == ["abc def ghi"])
        // "c d" deleted: in the sequence, "XYZ " lies between, typed in the record's past but hidden there.
        try Self.write("abef ghi", on: 1, &fleet, document, block)
        #expect(fleet.replicas[1].content(of: document).blocks.map(\.text) == ["abef ghi"])
        let entry = try #require(fleet.replicas[1].history.index[hidden.hash])
        let typed = try #require(fleet.replicas[1].blockRegister(block.id)).text.items.filter { $0.entry == Int32(entry) }
        #expect(typed.count == 4 && typed.filter { $0.scalar != " " }.map { Character($0.scalar) } == Array("XYZ"))
        let unmarked = typed.allSatisfy { $0.deleters.isEmpty }
        #expect(unmarked, "the delete marked characters its device did not show")
        fleet.healAll(&generator)
        #expect(fleet.replicas[0].content(of: document).blocks.map(\.text) == ["abef ghi"])
        let losing = fleet.replicas[0].conflicts().compactMap { $0.losing.block?.text }
        #expect(losing == ["abc XYZ def"])
    }
}
