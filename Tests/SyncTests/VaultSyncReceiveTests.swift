import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// What `VaultSync.receive` does to the binder beyond documents' content (SECURITY.md §19.5):
/// a peer's moves and removals reach the vault, and a node this vault could not add is not
/// removed by its next commit. And what damaged sync state does: the project works local-only,
/// and says why.
@Suite struct VaultSyncReceiveTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Case files") }

    /// A folder and two documents made here, committed, and taken by the peer.
    func start() throws -> (folder: NodeID, documents: [NodeID], peer: SyncReplica) {
        let (folder, documents) = try store { store in
            let folder = try store.addNode(.chapter, titled: "Part one", in: project.id)
            let documents = try ["Intake", "Plan"].map { title in
                let node = try store.addNode(.scene, titled: title, in: project.id)
                try store.replaceDocumentContent(of: node.id, in: project.id,
                                                 with: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: title + " notes")]))
                return node.id
            }
            return (folder.id, documents)
        }
        let record = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        var replica = SyncReplica(project: project.id, author: peer, devices: devices)
        #expect(replica.receive(record.encoded) == .applied(1))
        return (folder, documents, replica)
    }

    @Test func aPeersMoveAndRemovalReachTheVault() throws {
        var (folder, documents, replica) = try start()
        guard case .present(let kind, _, _, let title)? = replica.nodeValue(documents[0]) else { Issue.record("no document"); return }
        let moved = try replica.commit([.node(documents[0], .present(kind: kind, parent: folder, orderKey: "1i", title: title)),
                                        .node(documents[1], .removed)])
        let receipt = try sync { try $0.receive([moved.encoded], for: project.id) }
        #expect(receipt.stored == 1)
        let nodes = try store { try $0.nodes(in: project.id) }
        #expect(nodes.first { $0.id == documents[0] }?.parent == folder)
        #expect(nodes.first { $0.id == documents[0] }?.orderKey == "1i")
        #expect(!nodes.contains { $0.id == documents[1] })
        // And nothing of it comes back as a change of this device.
        #expect(try sync { try $0.commitLocalChanges(in: project.id) } == nil)
    }

    @Test func aNodeThisVaultCouldNotAddIsNotRemovedByItsNextCommit() throws {
        var (_, _, replica) = try start()
        // A document under a folder no record makes: the vault cannot place it.
        let stray = try NodeID.random()
        let record = try replica.commit([.node(stray, .present(kind: .scene, parent: try NodeID.random(), orderKey: "1k", title: "Stray"))])
        _ = try sync { try $0.receive([record.encoded], for: project.id) }
        #expect(try !store { try $0.nodes(in: project.id) }.contains { $0.id == stray })
        try store { store in _ = try store.addNode(.scene, titled: "New here", in: project.id) }
        let ours = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        #expect(!ours.operations.contains(.node(stray, .removed)))
        #expect(replica.receive(ours.encoded) == .applied(1))
        #expect(replica.nodeValue(stray) != .removed)
    }

    @Test func aSealedRecordThatFailsToOpenMakesTheProjectLocalOnlyAndSaysWhy() throws {
        _ = try start()
        #expect(try sync { try $0.state(of: project.id) } == .ready(records: 1))
        try vault.tamper("UPDATE sealed_records SET sealed = zeroblob(length(sealed)) WHERE module = 'sync'")
        let state = try sync { try $0.state(of: project.id) }
        guard case .localOnly(let reason) = state else { Issue.record("not local-only: \(state)"); return }
        #expect(reason.contains("does not open"))
        #expect(throws: SyncError(.damagedSyncState, "")) { try sync { try $0.commitLocalChanges(in: project.id) } }
        // The documents themselves are read and written as ever.
        try store { store in _ = try store.addNode(.scene, titled: "Written while local-only", in: project.id) }
        #expect(try store { try $0.nodes(in: project.id) }.count == 4)
    }

    @Test func aMissingRecordRowMakesTheProjectLocalOnlyAndSaysWhy() throws {
        var (_, documents, replica) = try start()
        var blocks = try store { try $0.documentContent(of: documents[0], in: project.id) }.blocks
        blocks[0].text = "edited on the peer"
        let edit = try #require(try replica.edit(documents[0], to: DocumentContent(blocks: blocks)))
        _ = try sync { try $0.receive([edit.encoded], for: project.id) }
        #expect(try sync { try $0.state(of: project.id) } == .ready(records: 2))
        try vault.tamper("DELETE FROM sync_records WHERE counter = 1 AND device_id = x'\(author.device.hex)'")
        let state = try sync { try $0.state(of: project.id) }
        guard case .localOnly(let reason) = state else { Issue.record("not local-only: \(state)"); return }
        #expect(reason.contains("not stored"))
        #expect(throws: SyncError(.damagedSyncState, "")) { try sync { try $0.receive([], for: project.id) } }
    }
}
