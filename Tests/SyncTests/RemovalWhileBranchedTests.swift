import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A document removed on one device while another, not having seen the removal, made a branch of
/// it (a suggestion: words typed that no block write holds) (review 20, F20-4; SECURITY.md §19.3):
/// the document stays on every device with its branch, whatever order the records arrive in, as it
/// does for a block edited unseen; a removal made knowing the branch removes both.
@Suite struct RemovalWhileBranchedTests {
    static let suggested = "Plan: rest, fluids, review in a week"

    /// Device 1 suggests a fuller plan (a branch); device 0 then removes the document, not having
    /// seen the branch unless `seen`.
    static func removedWhileBranched(seen: Bool = false) throws -> (VersionFleet, NodeID, Branch) {
        let fleet = try VersionFleet(devices: 2)
        let document = try fleet.document(on: 0, ["Assessment", "Plan: rest"])
        try fleet.sync(from: 0, to: 1)
        let base = try fleet.store(1) { try $0.createSnapshot(of: document, in: fleet.project) }
        var proposal = try fleet.content(document, on: 1).blocks
        proposal[1].text = suggested
        let branch = try fleet.store(1) {
            try $0.createBranch(of: document, in: fleet.project, base: base.id, content: DocumentContent(blocks: proposal), kind: .manual,
                                provenance: "laptop: a fuller plan")
        }
        if seen { try fleet.sync(from: 1, to: 0) }
        try fleet.store(0) { try $0.removeNode(document, in: fleet.project) }
        return (fleet, document, branch)
    }

    @Test(arguments: [false, true]) func theDocumentStaysWithItsBranchOnEveryDevice(removerFirst: Bool) throws {
        let (fleet, document, branch) = try Self.removedWhileBranched()
        if removerFirst { try fleet.sync(from: 0, to: 1); try fleet.sync(from: 1, to: 0) }
        else { try fleet.sync(from: 1, to: 0); try fleet.sync(from: 0, to: 1) }
        try fleet.syncAll()
        for device in 0..<2 {
            // Before: the document and the suggestion were gone from both devices, the sync silent.
            try #require(try Self.holds(document, on: device, of: fleet), "device \(device): the document and its suggestion are gone")
            #expect(try fleet.content(document, on: device).blocks.map(\.text) == ["Assessment", "Plan: rest"], "device \(device)")
            #expect(try fleet.branches(document, on: device).map(\.id) == [branch.id], "device \(device): the suggestion is lost")
            let proposed = try fleet.store(device) { try $0.branchContent(branch.id, of: document, in: fleet.project) }
            #expect(proposed.blocks.map(\.text) == ["Assessment", Self.suggested])
        }
    }

    /// The guard of the rule's other side (it passes on main too): the owner removed the document
    /// with its suggestion in view, as `doc rm --yes` warns, so both go.
    @Test func aRemovalMadeKnowingTheBranchRemovesTheDocumentAndTheBranch() throws {
        let (fleet, document, branch) = try Self.removedWhileBranched(seen: true)
        try fleet.syncAll()
        for device in 0..<2 {
            #expect(try Self.holds(document, on: device, of: fleet) == false, "device \(device)")
            #expect(try fleet.store(device) { try $0.branchStatuses(in: fleet.project) }.contains { $0.id == branch.id } == false)
        }
    }

    static func holds(_ document: NodeID, on device: Int, of fleet: VersionFleet) throws -> Bool {
        try fleet.store(device) { try $0.nodes(in: fleet.project) }.contains { $0.id == document }
    }
}
