import CryptoVault
import Testing
@testable import Sync
import Writing

/// Two devices adopting different conflict branches of one block at once (SECURITY.md §19.3: an
/// adoption of one conflict's side on one device and of another's on the other are two writes of
/// one block, concurrent): a third device that receives both, in either order, shows what every
/// device shows once healed, one adopted text whole in the document and the other in a new open
/// branch, never a mix of the two and no words lost.
@Suite struct ConcurrentAdoptionTests {
    /// The texts of paragraph 2 that the open sync conflict branches of `document` on `device` propose.
    static func proposals(_ fleet: VersionFleet, _ document: NodeID, on device: Int, besides: Set<BranchID> = []) throws -> [BranchID: String] {
        let open = try fleet.branches(document, on: device).filter { $0.kind == .syncConflict && $0.state == .open && !besides.contains($0.id) }
        var texts: [BranchID: String] = [:]
        for branch in open {
            texts[branch.id] = try fleet.store(device) { try $0.branchContent(branch.id, of: document, in: fleet.project) }.blocks.last?.text
        }
        return texts
    }

    @Test func twoAdoptionsOfDifferentBranchesOfOneBlockConvergeInEveryArrivalOrderWithNothingLost() throws {
        // Four vaults: 0, 1 and 2 change the dose at once (two conflicts, one losing side each);
        // 0 and 1 then adopt different ones; 2 and 3 receive the two adoptions in opposite orders.
        let fleet = try VersionFleet(devices: 4)
        let document = try fleet.document(on: 0, ["Plan of care.", "Dose is 5 mg."])
        try fleet.syncAll()
        for (device, dose) in [(0, "20"), (1, "30"), (2, "40")] { try fleet.edit(document, on: device, paragraph: 1, to: "Dose is \(dose) mg.") }
        try fleet.syncAll()
        let branches = try Self.proposals(fleet, document, on: 0)
        #expect(branches.count == 2, "\(branches)")
        for device in 1..<4 { #expect(try Self.proposals(fleet, document, on: device) == branches) }
        let sorted = branches.keys.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        let x = try #require(sorted.first), y = try #require(sorted.last)
        let adopted = [try #require(branches[x]), try #require(branches[y])]
        #expect(adopted[0] != adopted[1])

        try fleet.store(0) { _ = try $0.adopt(x, of: document, in: fleet.project) }
        try fleet.store(1) { _ = try $0.adopt(y, of: document, in: fleet.project) }
        #expect(try fleet.content(document, on: 0).blocks.map(\.text) == ["Plan of care.", adopted[0]])
        #expect(try fleet.content(document, on: 1).blocks.map(\.text) == ["Plan of care.", adopted[1]])
        try fleet.sync(from: 0, to: 2)
        try fleet.sync(from: 1, to: 2)
        try fleet.sync(from: 1, to: 3)
        try fleet.sync(from: 0, to: 3)
        // The two orders show the same document already (both hold both adoptions).
        let third = try fleet.content(document, on: 2)
        #expect(try fleet.content(document, on: 3) == third)
        #expect(adopted.contains(third.blocks[1].text), "the block shows \(third.blocks[1].text), which neither adoption wrote")

        try fleet.syncAll()
        let shown = try fleet.content(document, on: 0)
        #expect(shown == third)
        let other = shown.blocks[1].text == adopted[0] ? adopted[1] : adopted[0]
        var replicas: [SyncReplica] = []
        for device in 0..<4 {
            #expect(try fleet.content(document, on: device) == shown, "device \(device)")
            // The other adoption's words are in a new open branch of the block on every device.
            let open = try Self.proposals(fleet, document, on: device, besides: [x, y])
            #expect(open.values.contains(other), "device \(device): \(open)")
            replicas.append(try fleet.sync(device) { try $0.replica(of: fleet.project) })
        }
        let conflicts = replicas[0].conflicts()
        for device in 1..<4 {
            #expect(replicas[device].conflicts() == conflicts)
            #expect(replicas[device].pendingConflicts.isEmpty)
        }

        // Every arrival order of the records gives the same document and conflicts.
        let records = try fleet.sync(0) { try $0.records(of: fleet.project, missingFrom: [:]) }
        var generator = SeededGenerator(seed: 19)
        for _ in 0..<12 {
            var replica = SyncReplica(project: fleet.project, author: nil, devices: fleet.keys)
            for bytes in records.shuffled(using: &generator) { replica.receive(bytes) }
            #expect(replica.recordCount == records.count && replica.refusals.isEmpty)
            #expect(replica.content(of: document).blocks.map(\.text) == shown.blocks.map(\.text))
            #expect(replica.conflicts() == conflicts)
        }
    }
}
