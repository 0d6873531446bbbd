import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A 0x03 of the earlier naming rule (SECURITY.md §19.2; attack review s6, A11): records made
/// before conflicts were facts of two writes named a fold's several losing writes at once, by the
/// block and their records' hashes ascending. A vault that stored one must still pass it on:
/// `vaultctl repair --from` an own device and a new device's first sync receive every stored record
/// through the checks, and one refused record refuses the whole repair (and leaves every later
/// record of the project waiting). Such a name is taken when two or more concurrent writes of the
/// block in its record's past make it, and its losing side is their fold as the records give it,
/// whatever words it carries.
@Suite(.serialized) struct EarlierConflictNameTests {
    typealias F = SyncExchangeFixture

    /// The desk's project edited on both devices at once (no conflict: the desk types before the
    /// word, the laptop after it) and synced; then a record of the laptop's device carrying a 0x03
    /// of the earlier rule naming both edits, as an old build made it, stored on the desk (taken
    /// from the laptop, an own device). It carries the fold's honest words, or `deleted`.
    static func deskHoldingAnEarlierRuleConflict(honestWords: Bool) throws -> (f: F, project: WritingProject, document: NodeID) {
        let f = try F()
        let project = try F.project(f.desk, "Memo")
        let document = try F.document(f.desk, in: project, "Draft", ["facts"])
        try f.syncLaptop()
        try F.edit(f.desk, project, document, block: 0, to: "new facts")
        try F.edit(f.laptop, try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }, document, block: 0, to: "facts here")
        try f.syncLaptop()
        #expect(try F.texts(f.desk, project.id, document) == ["new facts here"])

        let laptop = SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey)
        let devices = [f.deskKeys.profile.deviceID: f.deskKeys.profile.signingPublicKey, laptop.device: laptop.key.publicKey]
        var replica = SyncReplica(project: project.id, author: laptop, devices: devices)
        for bytes in try SyncEndpoint(vault: f.desk.unlocked, peer: f.laptopKeys.profile).missing(project, from: [:]).records { replica.receive(bytes) }
        let edits = replica.history.heads.map { replica.history.entries[$0].record.hash }.sorted { $0.lexicographicallyPrecedes($1) }
        #expect(edits.count == 2, "the two concurrent edits are the heads")
        let (orderKey, block) = try #require(replica.orderedBlocks(of: document).first)
        #expect(block.text == "new facts here")
        let fold = SyncConflict.branchID("SealedVault sync conflict v1", block.id.bytes + edits.flatMap { $0 })
        let honest = BlockValue.present(orderKey: orderKey, block: block)
        let record = try replica.commit([.conflict(SyncConflict(branch: fold, document: document, block: block.id,
                                                                losing: honestWords ? honest : .deleted, winning: honest))],
                                        carryingConflicts: false)
        let stored = try SyncEndpoint(vault: f.desk.unlocked, peer: f.laptopKeys.profile).receive([record.encoded], for: project, coordinator: nil)
        #expect(stored.stored == 1 && stored.refused.isEmpty, "\(stored)")
        return (f, project, document)
    }

    static func branchTexts(_ vault: TestVault, _ project: ProjectID, _ document: NodeID) throws -> [[String]] {
        try vault.unlocked.transaction { tx in
            let store = WritingStore(tx)
            return try store.branches(of: document, in: project).map { try store.branchContent($0.id, of: document, in: project).blocks.map(\.text) }
        }
    }

    @Test(arguments: [true, false])
    func repairFromAnOwnDeviceHoldingAnEarlierRuleConflictRebuildsTheProject(honestWords: Bool) throws {
        let (f, project, document) = try Self.deskHoldingAnEarlierRuleConflict(honestWords: honestWords)
        #expect(try Self.branchTexts(f.desk, project.id, document) == [["new facts here"]], "the fold's words, as the records give them")

        let report = try StoreRepair(vault: f.laptop.unlocked, transport: try f.transport()).run()
        #expect(report.projects.map(\.project) == [project.id], "\(report)")
        #expect(try F.texts(f.laptop, project.id, document) == ["new facts here"])
        #expect(try Self.branchTexts(f.laptop, project.id, document) == [["new facts here"]])
    }
}
