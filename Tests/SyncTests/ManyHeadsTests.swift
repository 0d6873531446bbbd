import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// More heads than a record names (review 17 s10, N-s10-3; SECURITY.md §19.2 "parents"): 65 signers
/// none of whose latest records saw the others. Before, every commit of a device holding them threw
/// `invalidChange` ("at most 64 parents"), for good. Now the commit names the 64 of highest rank and
/// a joining record names the one before it and the rest, so the device commits and every device
/// holding the records converges.
@Suite struct ManyHeadsTests {
    @Test func aVaultHolding65RootsOf65DevicesCommitsAnEditAndASecondDeviceConverges() throws {
        let vault = try TestVault(modules: [WritingSchema.module, SyncSchema.module])
        let project = try vault.unlocked.createWritingProject(named: "Many hands", register: .general, kind: .document)
        let me = try SyncAuthor.random()
        let signers = try (0..<65).map { _ in try SyncAuthor.random() }
        var devices = Dictionary(uniqueKeysWithValues: signers.map { ($0.device, $0.key.publicKey) })
        devices[me.device] = me.key.publicKey
        // Each signer's first record (no parents) adds a document of its own.
        let roots = try signers.enumerated().map { index, signer in
            var replica = SyncReplica(project: project.id, author: signer, devices: devices)
            return try replica.commit([.node(try NodeID.random(), .present(kind: .scene, parent: nil, orderKey: OrderKey.between(nil, nil),
                                                                            title: "Signer \(index)"))])
        }
        func sync(_ body: (VaultSync) throws -> Void) throws {
            try vault.unlocked.transaction { tx in try body(VaultSync(WritingStore(tx), author: me, devices: devices)) }
        }
        try sync { sync in
            let receipt = try sync.receive(roots.map(\.encoded), for: project.id)
            #expect(receipt.stored == 65 && receipt.refused.isEmpty, "\(receipt)")
        }
        try vault.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let node = try store.addNode(.scene, titled: "Mine", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "The owner's words.")]))
        }
        try sync { sync in
            let made = try sync.commitLocalChanges(in: project.id)
            #expect(made != nil)
        }

        var mine: [ChangeRecord] = [], held = SyncReplica(project: project.id, author: nil, devices: devices)
        try sync { sync in
            held = try sync.replica(of: project.id)
            mine = held.records(missingFrom: [:]).filter { $0.device == me.device }
        }
        // Two records: the edit naming 64 heads, then a join naming it and the 65th.
        #expect(mine.count == 2)
        for record in mine {
            let parsed = try ChangeRecordCodec.parse(record.encoded)
            #expect(parsed.parents.count <= ChangeRecordCodec.maximumParents && parsed.hash == record.hash)
        }
        #expect(mine.first?.parents.count == 64)
        #expect(mine.last?.parents.contains(try #require(mine.first).hash) == true)
        let named = Set(mine.flatMap(\.parents))
        #expect(Set(roots.map(\.hash)).isSubset(of: named), "some of the 65 heads are named by no record")
        #expect(held.history.heads.count == 1)

        // A second device taking the roots and the two records shows the same documents.
        var second = SyncReplica(project: project.id, author: nil, devices: devices)
        for record in roots + mine { second.receive(record.encoded) }
        #expect(second.refusals.isEmpty, "\(second.refusals)")
        #expect(second.binder == held.binder && second.documents.count == 66)
        let document = try #require(second.documents.first { if case .present(_, _, _, "Mine")? = second.binder[$0] { true } else { false } })
        #expect(second.content(of: document).blocks.map(\.text) == ["The owner's words."])
        // And the vault commits again: nothing left to join, one record naming the join.
        try vault.unlocked.transaction { tx in try WritingStore(tx).renameNode(document, in: project.id, to: "Mine, renamed") }
        try sync { sync in
            let next = try #require(try sync.commitLocalChanges(in: project.id))
            #expect(next.parents == [try #require(mine.last).hash])
        }
    }
}
