import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A record that brings an id another project of the receiving vault holds (review s8 F1, review 17
/// s9 N-s9-1, SECURITY.md §19.5 "Ids another project holds"). A colleague (C), an editor of the
/// owner's shared project P, shares its own project P2 with the owner's laptop (L) only, and puts one
/// id into both: an id of P2 into a record of P (F1), or an id of the owner's own paragraph of P into
/// P2 (N-s9-1). Before F1, the laptop's store refused the write and the owner's devices split; after
/// it, the project that held the id first on a vault kept it, so the colleague could hide the
/// owner's paragraph on the laptop. Now the owner's own project keeps the id on every device,
/// whichever came first: P2 leaves its item out on the laptop (its records keep it, nothing of it is
/// taken for a removal), the owner's devices show P alike, and the laptop names what P2 leaves out.
@Suite struct OtherProjectIDsTests {
    enum Collision: String, CaseIterable, Sendable { case node, block, entry }

    /// The colleague's own project, on the colleague's vault and (synced) on the laptop.
    struct OtherProject {
        let id: ProjectID
        let document: NodeID
        let block: BlockID
        let entry: EntryID
    }

    static let desk = 0, laptop = 1, colleague = 2
    static let modules = [WritingSchema.module, SyncSchema.module, SyncExchangeSchema.module]

    @Test(arguments: Collision.allCases)
    func anIdOfTheColleaguesProjectInTheOwnersProjectIsTheOwnersOnEveryOwnDevice(_ collision: Collision) throws {
        let fleet = try VersionFleet(devices: 3, modules: Self.modules)
        let owners = try fleet.document(on: Self.desk, ["Intake", "Plan"])
        try fleet.sync(from: Self.desk, to: Self.laptop)
        try fleet.sync(from: Self.desk, to: Self.colleague)
        let other = try Self.shareOtherProject(of: fleet)
        #expect(try Self.p2Shows(collision, other, on: Self.laptop, in: fleet))

        // The colleague's valid record of P, pushed to the desk only.
        let pushed = try Self.colleaguesRecord(collision, reusing: other, owners: owners, in: fleet)
        let taken = try fleet.sync(Self.desk) { try $0.receive([pushed], for: fleet.project) }
        #expect(taken.stored == 1 && taken.refused == [])

        // The owner's two devices sync (each step asserts that no record is refused).
        try fleet.sync(from: Self.desk, to: Self.laptop)
        try fleet.sync(from: Self.laptop, to: Self.desk)
        let vectors = try [Self.desk, Self.laptop].map { device in try fleet.sync(device) { try $0.replica(of: fleet.project).versionVector } }
        #expect(vectors[0] == vectors[1])
        // P keeps the id on both: the laptop took it from P2, which came first there.
        #expect(try Self.shows(collision, of: other, owners: owners, on: Self.desk, in: fleet))
        #expect(try Self.shows(collision, of: other, owners: owners, on: Self.laptop, in: fleet))
        #expect(try Self.project(on: Self.laptop, in: fleet) == (try Self.project(on: Self.desk, in: fleet)))
        #expect(try !Self.p2Shows(collision, other, on: Self.laptop, in: fleet))
        // What P2 leaves out is named, with the project that keeps it.
        #expect(try fleet.sync(Self.laptop) { try $0.leftOutHere(of: other.id) } == [SyncLeftOut(kind: collision.rawValue, count: 1, heldBy: fleet.project)])
        #expect(try fleet.sync(Self.laptop) { try $0.leftOutHere(of: fleet.project) } == [])
        // Nothing left out is taken for the owner's removal: neither project has anything to send.
        #expect(try fleet.sync(Self.laptop) { try $0.commitLocalChanges(in: fleet.project) } == nil)
        #expect(try fleet.sync(Self.laptop) { try $0.commitLocalChanges(in: other.id) } == nil)

        // The owner's words go both ways, and P stays the same on both.
        try fleet.edit(owners, on: Self.laptop, paragraph: 0, to: "Intake: fever for three days")
        try fleet.sync(from: Self.laptop, to: Self.desk)
        try fleet.edit(owners, on: Self.desk, paragraph: 1, to: "Plan: fluids")
        try fleet.sync(from: Self.desk, to: Self.laptop)
        let texts = { (device: Int) in try fleet.content(owners, on: device).blocks.map(\.text) }
        #expect(try texts(Self.laptop).prefix(2) == ["Intake: fever for three days", "Plan: fluids"])
        #expect(try Self.project(on: Self.laptop, in: fleet) == (try Self.project(on: Self.desk, in: fleet)))

        // P2's next records change nothing of that: P2 still leaves the item out, P keeps it.
        try fleet.store(Self.colleague) { store in _ = try store.addEntry(.place, named: "Ward 3", in: other.id) }
        try Self.sendOtherProject(other, of: fleet)
        #expect(try !Self.p2Shows(collision, other, on: Self.laptop, in: fleet))
        #expect(try Self.shows(collision, of: other, owners: owners, on: Self.laptop, in: fleet))
        #expect(try fleet.sync(Self.laptop) { try $0.commitLocalChanges(in: other.id) } == nil)
    }

    /// Review 17 s9, N-s9-1, the reviewer's sequence: the owner writes a clause on the desk; the
    /// colleague, an editor of P, puts a paragraph with the clause's id into its own P2 and shares P2
    /// with the laptop. Whether the laptop takes P2 before or after the clause, it shows the owner's
    /// clause in P, P2 leaves its paragraph out, and the laptop names it.
    @Test(arguments: [true, false])
    func aColleagueCannotHideTheOwnersParagraphOnAnOwnDevice(_ otherFirst: Bool) throws {
        let fleet = try VersionFleet(devices: 3, modules: Self.modules)
        let owners = try fleet.document(on: Self.desk, ["Memo"])
        try fleet.sync(from: Self.desk, to: Self.laptop)
        let clause = "Clause 7: the owner keeps the right to terminate."
        try fleet.store(Self.desk) { store in
            var content = try store.documentContent(of: owners, in: fleet.project)
            content.blocks.append(Block(id: try BlockID.random(), kind: .paragraph, text: clause))
            try store.replaceDocumentContent(of: owners, in: fleet.project, with: content)
        }
        // The colleague learns the clause's id (an editor of P reads it from any device it syncs P with) and,
        // on a vault that does not hold P's clause (the store would refuse it there), makes P2, whose one
        // paragraph has that id (planted as the console's write route takes an id).
        let clauseID = try #require(try fleet.content(owners, on: Self.desk).blocks.last?.id)
        let other = try Self.shareOtherProject(of: fleet, paragraph: Block(id: clauseID, kind: .paragraph, text: "Clause 7 is void."), sending: otherFirst)
        try fleet.sync(from: Self.desk, to: Self.laptop)
        if !otherFirst { try Self.sendOtherProject(other, of: fleet) }

        #expect(try fleet.content(owners, on: Self.laptop).blocks.map(\.text) == ["Memo", clause])
        #expect(try fleet.store(Self.laptop) { try $0.documentContent(of: other.document, in: other.id) }.blocks == [])
        #expect(try fleet.sync(Self.laptop) { try $0.leftOutHere(of: other.id) } == [SyncLeftOut(kind: "block", count: 1, heldBy: fleet.project)])
        #expect(try fleet.sync(Self.laptop) { try $0.commitLocalChanges(in: other.id) } == nil)
        // An edit on the laptop reaches the desk, and the clause stays on both.
        try fleet.edit(owners, on: Self.laptop, paragraph: 0, to: "Memo, read")
        try fleet.sync(from: Self.laptop, to: Self.desk)
        for device in [Self.desk, Self.laptop] {
            #expect(try fleet.content(owners, on: device).blocks.map(\.text) == ["Memo, read", clause])
        }
    }

    /// The colleague makes P2 (a document with one paragraph, and an entry); the laptop holds it as
    /// the colleague's (its origin) and, when `sending`, takes its records.
    static func shareOtherProject(of fleet: VersionFleet, paragraph: Block? = nil, sending: Bool = true) throws -> OtherProject {
        let made = try fleet.vaults[colleague].unlocked.createWritingProject(named: "Ward round", register: .general, kind: .document)
        let other = try fleet.store(colleague) { store in
            let node = try store.addNode(.scene, titled: "Bed 4", in: made.id)
            let block = try paragraph.map { $0 } ?? Block(id: BlockID.random(), kind: .paragraph, text: "Seen at eight")
            try store.replaceDocumentContent(of: node.id, in: made.id, with: DocumentContent(blocks: [block]))
            let entry = try store.addEntry(.character, named: "Mr Adeyemi", in: made.id)
            return OtherProject(id: made.id, document: node.id, block: block.id, entry: entry.id)
        }
        try fleet.vaults[laptop].unlocked.transaction { tx in
            _ = try WritingStore(tx).addSyncedProject(made.id, named: "Ward round", register: .general, kind: .document, privileged: false)
            try SyncExchangeStore(database: tx.database).setOrigin(of: made.id, device: fleet.authors[colleague].device, access: .editor)
        }
        if sending { try sendOtherProject(other, of: fleet) }
        return other
    }

    /// The colleague's P2 committed, and its records the laptop lacks taken there.
    static func sendOtherProject(_ other: OtherProject, of fleet: VersionFleet) throws {
        try fleet.sync(colleague) { _ = try $0.commitLocalChanges(in: other.id) }
        let vector = try fleet.sync(laptop) { try $0.replica(of: other.id).versionVector }
        let records = try fleet.sync(colleague) { try $0.records(of: other.id, missingFrom: vector) }
        let receipt = try fleet.sync(laptop) { try $0.receive(records, for: other.id) }
        #expect(receipt.refused == [] && receipt.stored == records.count)
    }

    /// One record of P signed by the colleague, adding something with an id of P2: a document
    /// (node id), a paragraph of the owner's document (block id), or an entry (entry id).
    static func colleaguesRecord(_ collision: Collision, reusing other: OtherProject, owners: NodeID, in fleet: VersionFleet) throws -> [UInt8] {
        var replica = try fleet.sync(colleague) { try $0.replica(of: fleet.project) }
        let operations: [ChangeOperation]
        switch collision {
        case .node:
            let block = try BlockID.random()
            operations = [.node(other.document, .present(kind: .scene, parent: nil, orderKey: OrderKey.between("z", nil), title: "Hallway")),
                          .block(document: other.document, block, .present(orderKey: OrderKey.between(nil, nil), block: Block(id: block, kind: .paragraph))),
                          .text(document: other.document, block, [.insert(after: nil, text: "Colleague's note")])]
        case .block:
            let last = replica.orderedBlocks(of: owners).last?.orderKey
            operations = [.block(document: owners, other.block, .present(orderKey: OrderKey.between(last, nil), block: Block(id: other.block, kind: .paragraph))),
                          .text(document: owners, other.block, [.insert(after: nil, text: "Colleague's paragraph")])]
        case .entry:
            let entry = ProjectEntry(id: other.entry, kind: .character, name: "Dr Okafor", orderKey: OrderKey.between(nil, nil))
            operations = [.project(.entry(other.entry, .present(entry)))]
        }
        return try replica.commit(operations).encoded
    }

    /// Whether `device`'s P shows the colleague's addition.
    static func shows(_ collision: Collision, of other: OtherProject, owners: NodeID, on device: Int, in fleet: VersionFleet) throws -> Bool {
        try fleet.store(device) { store in
            switch collision {
            case .node: try store.nodes(in: fleet.project).contains { $0.id == other.document && $0.title == "Hallway" }
            case .block: try store.documentContent(of: owners, in: fleet.project).blocks.contains { $0.id == other.block && $0.text == "Colleague's paragraph" }
            case .entry: try store.entries(in: fleet.project).contains { $0.id == other.entry && $0.name == "Dr Okafor" }
            }
        }
    }

    /// Whether `device`'s P2 shows its own item of that id.
    static func p2Shows(_ collision: Collision, _ other: OtherProject, on device: Int, in fleet: VersionFleet) throws -> Bool {
        try fleet.store(device) { store in
            switch collision {
            case .node: try store.nodes(in: other.id).contains { $0.id == other.document && $0.title == "Bed 4" }
            case .block: try store.nodes(in: other.id).contains { $0.id == other.document }
                && store.documentContent(of: other.document, in: other.id).blocks.contains { $0.id == other.block && $0.text == "Seen at eight" }
            case .entry: try store.entries(in: other.id).contains { $0.id == other.entry && $0.name == "Mr Adeyemi" }
            }
        }
    }

    /// P on `device`: its nodes with titles and parents, each document's bytes, its entries.
    static func project(on device: Int, in fleet: VersionFleet) throws -> [String] {
        try fleet.store(device) { store in
            let nodes = try store.nodes(in: fleet.project).sorted { $0.id.bytes.lexicographicallyPrecedes($1.id.bytes) }
            return try nodes.map { "\($0.id.hex) \($0.title) \($0.parent?.hex ?? "-") \($0.orderKey) \(try store.documentContent(of: $0.id, in: fleet.project).canonicalBytes)" }
                + (try store.entries(in: fleet.project).map { "\($0.id.hex) \($0.name) \($0.orderKey)" })
        }
    }
}
