import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A record that brings an id another project of the receiving vault holds (review s8 F1,
/// SECURITY.md §19.5 "Ids another project holds"). A colleague (C), an editor of the owner's shared
/// project P, shares its own project P2 with the owner's laptop (L) only, then pushes to the desk (D)
/// a valid record of P that adds a document, paragraph or entry with an id of P2. Before, the
/// laptop's store refused the write, the whole batch was refused, and D and L refused each other's
/// records of P for good. Now the laptop leaves that one thing out of P while P2 holds the id: every
/// record is taken on both, P2 stays as it was, the owner's words go both ways, the laptop's commits
/// never take what it left out for a removal, and once P2 no longer holds the id the laptop shows it.
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

    @Test(arguments: Collision.allCases)
    func anIdAnotherProjectHoldsOnOneOwnDeviceNeverSplitsTheOwnersDevices(_ collision: Collision) throws {
        let fleet = try VersionFleet(devices: 3)
        let owners = try fleet.document(on: Self.desk, ["Intake", "Plan"])
        try fleet.sync(from: Self.desk, to: Self.laptop)
        try fleet.sync(from: Self.desk, to: Self.colleague)
        let other = try Self.shareOtherProject(of: fleet)
        let p2Before = try Self.holdings(of: other, on: Self.laptop, in: fleet)

        // The colleague's valid record of P, pushed to the desk only.
        let pushed = try Self.colleaguesRecord(collision, reusing: other, owners: owners, in: fleet)
        let taken = try fleet.sync(Self.desk) { try $0.receive([pushed], for: fleet.project) }
        #expect(taken.stored == 1 && taken.refused == [])

        // The owner's two devices sync (each step asserts that no record is refused).
        try fleet.sync(from: Self.desk, to: Self.laptop)
        try fleet.sync(from: Self.laptop, to: Self.desk)
        let vectors = try [Self.desk, Self.laptop].map { device in try fleet.sync(device) { try $0.replica(of: fleet.project).versionVector } }
        #expect(vectors[0] == vectors[1])
        // P2 on the laptop is as it was.
        #expect(try Self.holdings(of: other, on: Self.laptop, in: fleet) == p2Before)
        // The desk shows the colleague's addition; the laptop leaves it out of P while P2 holds the id.
        #expect(try Self.shows(collision, of: other, owners: owners, on: Self.desk, in: fleet))
        #expect(try !Self.shows(collision, of: other, owners: owners, on: Self.laptop, in: fleet))
        // The laptop took nothing left out for its own removal: its commit has nothing to send.
        #expect(try fleet.sync(Self.laptop) { try $0.commitLocalChanges(in: fleet.project) } == nil)

        // The owner's words go both ways, and the desk keeps the colleague's addition.
        try fleet.edit(owners, on: Self.laptop, paragraph: 0, to: "Intake: fever for three days")
        try fleet.sync(from: Self.laptop, to: Self.desk)
        try fleet.edit(owners, on: Self.desk, paragraph: 1, to: "Plan: fluids")
        try fleet.sync(from: Self.desk, to: Self.laptop)
        let texts = { (device: Int) in try fleet.content(owners, on: device).blocks.map(\.text) }
        #expect(try texts(Self.laptop).prefix(2) == ["Intake: fever for three days", "Plan: fluids"])
        #expect(try texts(Self.desk).prefix(2) == ["Intake: fever for three days", "Plan: fluids"])
        #expect(try Self.shows(collision, of: other, owners: owners, on: Self.desk, in: fleet))
        #expect(try Self.holdings(of: other, on: Self.laptop, in: fleet) == p2Before)

        // Once P2 no longer holds the id, the next exchange shows it on the laptop too: P is the desk's, byte for byte.
        try fleet.store(Self.laptop) { store in
            switch collision {
            case .node, .block: try store.removeNode(other.document, in: other.id)
            case .entry: try store.removeEntry(other.entry, in: other.id)
            }
        }
        try fleet.sync(from: Self.desk, to: Self.laptop)
        #expect(try Self.shows(collision, of: other, owners: owners, on: Self.laptop, in: fleet))
        #expect(try Self.project(on: Self.laptop, in: fleet) == (try Self.project(on: Self.desk, in: fleet)))
    }

    /// The colleague makes P2 (a document with one paragraph, and an entry) and the laptop takes its records.
    static func shareOtherProject(of fleet: VersionFleet) throws -> OtherProject {
        let made = try fleet.vaults[colleague].unlocked.createWritingProject(named: "Ward round", register: .general, kind: .document)
        let other = try fleet.store(colleague) { store in
            let node = try store.addNode(.scene, titled: "Bed 4", in: made.id)
            let block = Block(id: try BlockID.random(), kind: .paragraph, text: "Seen at eight")
            try store.replaceDocumentContent(of: node.id, in: made.id, with: DocumentContent(blocks: [block]))
            let entry = try store.addEntry(.character, named: "Mr Adeyemi", in: made.id)
            return OtherProject(id: made.id, document: node.id, block: block.id, entry: entry.id)
        }
        try fleet.sync(colleague) { _ = try $0.commitLocalChanges(in: made.id) }
        let records = try fleet.sync(colleague) { try $0.records(of: made.id, missingFrom: [:]) }
        let receipt = try fleet.sync(laptop) { sync in
            _ = try sync.store.addSyncedProject(made.id, named: "Ward round", register: .general, kind: .document, privileged: false)
            return try sync.receive(records, for: made.id)
        }
        #expect(receipt.refused == [] && receipt.stored == records.count)
        return other
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

    /// P2 on `device`: its nodes with titles, each document's bytes, its entries.
    static func holdings(of other: OtherProject, on device: Int, in fleet: VersionFleet) throws -> [String] {
        try fleet.store(device) { store in
            let nodes = try store.nodes(in: other.id).sorted { $0.id.bytes.lexicographicallyPrecedes($1.id.bytes) }
            return try nodes.map { "\($0.id.hex) \($0.title) \(try store.documentContent(of: $0.id, in: other.id).canonicalBytes)" }
                + (try store.entries(in: other.id).map { "\($0.id.hex) \($0.name)" })
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
