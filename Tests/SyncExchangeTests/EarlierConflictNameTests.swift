import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A 0x03 of an earlier naming rule in a record made before the merge rule of block conflicts
/// (SECURITY.md §19.2, §19.3; attack review s6, A11): records of body version 1 carried conflicts
/// named "SealedVault sync conflict v1" by a fold's losing writes. A vault that stored one must still
/// pass it on: `vaultctl repair --from` an own device and a new device's first sync receive every
/// stored record through the checks, and one refused record refuses the whole repair (and leaves
/// every later record of the project waiting). Under the current rule a version-1 record's 0x03 is
/// read and ignored, whatever words it carries: not refused, no branch, no words taken from it; the
/// conflicts are the records' own (their merge points).
@Suite(.serialized) struct EarlierConflictNameTests {
    typealias F = SyncExchangeFixture

    /// The desk's project edited on both devices at once and synced: one block changed on both,
    /// so a conflict, the higher-ranked side shown whole and the other in a branch. Then a
    /// version-1 record of the laptop's device carrying a 0x03 of the earlier rule, as an old
    /// build made it, stored on the desk (taken from the laptop, an own device). It carries the
    /// shown words, or `deleted`. Returns the texts shown and the side the branch holds.
    static func deskHoldingAnEarlierRuleConflict(honestWords: Bool) throws
        -> (f: F, project: WritingProject, document: NodeID, shown: [String], other: String) {
        let f = try F()
        let project = try F.project(f.desk, "Memo")
        let document = try F.document(f.desk, in: project, "Draft", ["facts"])
        try f.syncLaptop()
        try F.edit(f.desk, project, document, block: 0, to: "new facts")
        try F.edit(f.laptop, try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }, document, block: 0, to: "facts here")
        try f.syncLaptop()
        let shown = try F.texts(f.desk, project.id, document)
        #expect(shown == ["new facts"] || shown == ["facts here"], "one side whole, never a splice: \(shown)")
        let other = shown == ["new facts"] ? "facts here" : "new facts"

        let laptop = SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey)
        let devices = [f.deskKeys.profile.deviceID: f.deskKeys.profile.signingPublicKey, laptop.device: laptop.key.publicKey]
        var replica = SyncReplica(project: project.id, author: laptop, devices: devices)
        for bytes in try SyncEndpoint(vault: f.desk.unlocked, peer: f.laptopKeys.profile).missing(project, from: [:]).records { replica.receive(bytes) }
        let heads = replica.history.heads.map { replica.history.entries[$0].record.hash }.sorted { $0.lexicographicallyPrecedes($1) }
        let (orderKey, block) = try #require(replica.orderedBlocks(of: document).first)
        #expect([block.text] == shown)
        let fold = SyncConflict.branchID("SealedVault sync conflict v1", block.id.bytes + heads.flatMap { $0 })
        let honest = BlockValue.present(orderKey: orderKey, block: block)
        let operations: [ChangeOperation] = [.conflict(SyncConflict(branch: fold, document: document, block: block.id,
                                                                   losing: honestWords ? honest : .deleted, winning: honest))]
        let body = try ChangeRecordCodec.body(project: project.id, device: laptop.device, counter: replica.history.counter(of: laptop.device) + 1,
                                              lamport: replica.history.maximumLamport + 1, parents: heads, operations: operations, version: 1)
        let record = try ChangeRecordCodec.parse(body + (try laptop.key.signature(for: ChangeRecordCodec.signingInput(body))))
        #expect(record.version == 1)
        let stored = try SyncEndpoint(vault: f.desk.unlocked, peer: f.laptopKeys.profile).receive([record.encoded], for: project, coordinator: nil)
        #expect(stored.stored == 1 && stored.refused.isEmpty, "\(stored)")
        return (f, project, document, shown, other)
    }

    static func branchTexts(_ vault: TestVault, _ project: ProjectID, _ document: NodeID) throws -> [[String]] {
        try vault.unlocked.transaction { tx in
            let store = WritingStore(tx)
            return try store.branches(of: document, in: project).map { try store.branchContent($0.id, of: document, in: project).blocks.map(\.text) }
        }
    }

    @Test(arguments: [true, false])
    func repairFromAnOwnDeviceHoldingAnEarlierRuleConflictRebuildsTheProject(honestWords: Bool) throws {
        let (f, project, document, shown, other) = try Self.deskHoldingAnEarlierRuleConflict(honestWords: honestWords)
        #expect(try F.texts(f.desk, project.id, document) == shown, "the version-1 record's 0x03 changed nothing")
        #expect(try Self.branchTexts(f.desk, project.id, document).contains([other]), "the other side is in a branch")

        let report = try StoreRepair(vault: f.laptop.unlocked, transport: try f.transport()).run()
        #expect(report.projects.map(\.project) == [project.id], "\(report)")
        #expect(try F.texts(f.laptop, project.id, document) == shown)
        #expect(try Self.branchTexts(f.laptop, project.id, document).contains([other]), "the rebuilt store keeps the other side's branch")
    }
}
