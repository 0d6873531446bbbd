import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A document removed on one device while another, not having seen the removal, edited it
/// (SECURITY.md §19.3's removal conflicts): the document stays on every device with the edits in
/// it, each edited block is a conflict whose branch proposes the removal's side (the block gone),
/// whatever order the records arrive in; a removal made knowing the edits removes it.
@Suite struct RemovalConflictTests {
    /// Device 0 removes the document while device 1 rewrites its second paragraph.
    static func removedWhileEdited() throws -> (SyncFleet, NodeID, [Block]) {
        var (fleet, document, blocks) = try ConflictResolutionTests.pair()
        _ = try fleet.replicas[0].commit([.node(document, .removed)])
        _ = try fleet.replicas[1].edit(document, to: ConflictResolutionTests.edited(blocks, 1, "two, rewritten at the desk"))
        return (fleet, document, blocks)
    }

    @Test(arguments: [false, true]) func theDocumentStaysWithTheEditsAndTheRemovalIsABranch(removerFirst: Bool) throws {
        var (fleet, document, blocks) = try Self.removedWhileEdited()
        var generator = SeededGenerator(seed: 3)
        if removerFirst { fleet.sync(from: 0, to: 1, shuffle: &generator); fleet.sync(from: 1, to: 0, shuffle: &generator) }
        else { fleet.sync(from: 1, to: 0, shuffle: &generator); fleet.sync(from: 0, to: 1, shuffle: &generator) }
        for replica in 0..<2 {
            #expect(fleet.replicas[replica].documents == [document], "device \(replica)")
            #expect(fleet.replicas[replica].content(of: document).blocks.map(\.text) == ["one", "two, rewritten at the desk", "three"])
        }
        let conflicts = fleet.replicas[0].conflicts()
        #expect(conflicts == fleet.replicas[1].conflicts())
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.block == blocks[1].id)
        #expect(conflicts.first?.losing == .deleted)
        #expect(conflicts.first?.winning.block?.text == "two, rewritten at the desk")
        // The branch proposes the document as the removal saw it, without the block it took with it.
        let proposal = fleet.replicas[0].proposal(for: try #require(conflicts.first))
        #expect(proposal.blocks.map(\.text) == ["one", "three"])
    }

    @Test func aRemovedFolderAboveAKeptDocumentStaysToo() throws {
        var (fleet, document, blocks) = try ConflictResolutionTests.pair()
        let folder = try NodeID.random()
        let inFolder = NodeValue.present(kind: .scene, parent: folder, orderKey: "1i", title: "Session note")
        _ = try fleet.replicas[0].commit([.node(folder, .present(kind: .chapter, parent: nil, orderKey: "1a", title: "Part one")), .node(document, inFolder)])
        var generator = SeededGenerator(seed: 6)
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        _ = try fleet.replicas[0].commit([.node(document, .removed), .node(folder, .removed)])
        _ = try fleet.replicas[1].edit(document, to: ConflictResolutionTests.edited(blocks, 0, "one, and more"))
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        fleet.sync(from: 1, to: 0, shuffle: &generator)
        for replica in 0..<2 {
            #expect(fleet.replicas[replica].binder[document] == inFolder, "device \(replica)")
            #expect(fleet.replicas[replica].binder[folder] == .present(kind: .chapter, parent: nil, orderKey: "1a", title: "Part one"))
        }
    }

    @Test func aRemovalMadeKnowingTheEditsRemovesTheDocument() throws {
        var (fleet, document, _) = try Self.removedWhileEdited()
        var generator = SeededGenerator(seed: 4)
        fleet.sync(from: 1, to: 0, shuffle: &generator)
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        // Device 0 now holds the edit and shows the document again; removing it once more is a removal of the edits too.
        #expect(fleet.replicas[0].documents == [document])
        _ = try fleet.replicas[0].commit([.node(document, .removed)])
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        #expect(fleet.replicas[0].documents.isEmpty)
        #expect(fleet.replicas[1].documents.isEmpty)
    }

    @Test func aRemovalWithNoEditUnseenRemovesTheDocument() throws {
        var (fleet, document, _) = try ConflictResolutionTests.pair()
        _ = try fleet.replicas[0].commit([.node(document, .removed)])
        var generator = SeededGenerator(seed: 5)
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        #expect(fleet.replicas[1].documents.isEmpty)
        #expect(fleet.replicas[1].conflicts().isEmpty)
    }

    @Test(arguments: [false, true]) func aFolderRemovedWhileADocumentWasMadeInItStaysWithItOnEveryDevice(removerFirst: Bool) throws {
        var fleet = try SyncFleet(devices: 2)
        let folder = try NodeID.random()
        let part = NodeValue.present(kind: .chapter, parent: nil, orderKey: "1a", title: "Part one")
        _ = try fleet.replicas[0].commit([.node(folder, part)])
        var generator = SeededGenerator(seed: 9)
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        // The desk removes the folder (empty, as it knows it) while the laptop writes a document in it.
        _ = try fleet.replicas[0].commit([.node(folder, .removed)])
        let made = try NodeID.random()
        let inFolder = NodeValue.present(kind: .scene, parent: folder, orderKey: "1i", title: "Written on the laptop")
        _ = try fleet.replicas[1].commit([.node(made, inFolder)])
        if removerFirst { fleet.sync(from: 0, to: 1, shuffle: &generator); fleet.sync(from: 1, to: 0, shuffle: &generator) }
        else { fleet.sync(from: 1, to: 0, shuffle: &generator); fleet.sync(from: 0, to: 1, shuffle: &generator) }
        for replica in 0..<2 {
            #expect(fleet.replicas[replica].binder[made] == inFolder, "device \(replica): the document is shown nowhere")
            #expect(fleet.replicas[replica].binder[folder] == part, "device \(replica): the folder above it is gone")
            #expect(fleet.replicas[replica].documents.contains(made))
        }
        #expect(fleet.replicas[0].binder == fleet.replicas[1].binder)
    }

    @Test func aFolderRemovedKnowingWhatItHeldIsRemovedWithIt() throws {
        var fleet = try SyncFleet(devices: 2)
        let folder = try NodeID.random(), made = try NodeID.random()
        _ = try fleet.replicas[1].commit([.node(folder, .present(kind: .chapter, parent: nil, orderKey: "1a", title: "Part one")),
                                          .node(made, .present(kind: .scene, parent: folder, orderKey: "1i", title: "Draft"))])
        var generator = SeededGenerator(seed: 10)
        fleet.sync(from: 1, to: 0, shuffle: &generator)
        _ = try fleet.replicas[0].commit([.node(made, .removed), .node(folder, .removed)])
        fleet.sync(from: 0, to: 1, shuffle: &generator)
        for replica in 0..<2 {
            #expect(fleet.replicas[replica].binder[folder] == nil && fleet.replicas[replica].binder[made] == nil, "device \(replica)")
        }
    }
}

/// The same in a vault: the document this vault removed comes back with the peer's words, and the
/// removal is a syncConflict branch of it.
@Suite struct VaultRemovalConflictTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Case files") }

    @Test func aDocumentRemovedHereWhileThePeerEditedItComesBackWithABranch() throws {
        let (document, block) = try store { store in
            let node = try store.addNode(.scene, titled: "Intake", in: project.id)
            let block = Block(id: try BlockID.random(), kind: .paragraph, text: "intake notes")
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [block]))
            return (node.id, block)
        }
        let first = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        var replica = SyncReplica(project: project.id, author: peer, devices: devices)
        #expect(replica.receive(first.encoded) == .applied(1))
        // Removed here; edited on the peer, which has not seen the removal.
        try store { try $0.removeNode(document, in: project.id) }
        let removal = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        #expect(removal.operations.contains(.node(document, .removed)))
        let edit = try #require(try replica.edit(document, to: DocumentContent(blocks: [Block(id: block.id, kind: .paragraph,
                                                                                                     text: "intake notes, and what the client said")])))
        let receipt = try sync { try $0.receive([edit.encoded], for: project.id) }
        #expect(receipt.branchesMade == 1)
        let content = try store { try $0.documentContent(of: document, in: project.id) }
        #expect(content.blocks.map(\.text) == ["intake notes, and what the client said"])
        let branches = try store { try $0.branches(of: document, in: project.id) }
        #expect(branches.map(\.kind) == [.syncConflict])
        // The removal took the document's only block: rather than an empty document, the branch
        // proposes the block as the document shows it (SECURITY.md §19.3, block-scoped proposals).
        let proposal = try store { try $0.branchContent(branches[0].id, of: document, in: project.id) }
        #expect(proposal.blocks.map(\.text) == ["intake notes, and what the client said"])
        // The peer, taking the removal, keeps the document too: both sides show the same.
        #expect(replica.receive(removal.encoded) == .applied(1))
        #expect(replica.documents == [document])
        #expect(replica.content(of: document) == content)
    }
}

extension VaultRemovalConflictTests {
    /// A document whose conflicts have branches here, removed here by the owner (the store takes the
    /// branches with it) while the peer, not having seen the removal, edits it: the records bring the
    /// document back, and with it its conflicts' branches, as every device that kept the document
    /// shows them (SECURITY.md §19.5), not only the removal's new one.
    @Test func aDocumentRemovedHereAndBroughtBackGetsItsConflictsBranchesAgain() throws {
        let (document, block) = try store { store in
            let node = try store.addNode(.scene, titled: "Intake", in: project.id)
            let block = Block(id: try BlockID.random(), kind: .paragraph, text: "plan")
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [block]))
            return (node.id, block)
        }
        let first = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        var replica = SyncReplica(project: project.id, author: peer, devices: devices)
        #expect(replica.receive(first.encoded) == .applied(1))
        // Both replace the word: one conflict (the lower-ranked side), joined here on receiving: one branch.
        let theirs = try #require(try replica.edit(document, to: DocumentContent(blocks: [Block(id: block.id, kind: .paragraph, text: "desk words")])))
        try store { try $0.replaceDocumentContent(of: document, in: project.id, with: DocumentContent(blocks: [Block(id: block.id, kind: .paragraph, text: "laptop words")])) }
        let ours = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        #expect(try sync { try $0.receive([theirs.encoded], for: project.id) }.branchesMade == 1)
        let conflicts = Set(try store { try $0.branches(of: document, in: project.id) }.map(\.id))
        #expect(conflicts.count == 1)
        // The peer takes this vault's records: its edit and its join.
        let joined = try sync { try $0.replica(of: project.id) }.records(missingFrom: replica.versionVector)
        #expect(joined.first == ours && joined.count == 2)
        for record in joined { #expect(replica.receive(record.encoded) == .applied(1)) }
        // Removed here with its branches; edited on the peer, which has not seen the removal.
        try store { try $0.removeNode(document, in: project.id) }
        let removal = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        #expect(removal.operations.contains(.node(document, .removed)))
        let shown = replica.content(of: document).blocks[0].text
        let edit = try #require(try replica.edit(document, to: DocumentContent(blocks: [Block(id: block.id, kind: .paragraph, text: shown + " again")])))
        _ = try sync { try $0.receive([edit.encoded], for: project.id) }
        #expect(try store { try $0.nodes(in: project.id) }.map(\.id).contains(document))
        let branches = Set(try store { try $0.branches(of: document, in: project.id) }.map(\.id))
        #expect(branches.isSuperset(of: conflicts), "the text conflict's branches were not made again: \(branches) lacks some of \(conflicts)")
        #expect(branches.count == 2)  // and the removal's
        #expect(replica.receive(removal.encoded) == .applied(1))
        #expect(branches == Set(replica.conflicts().map(\.branch)))
    }
}

/// The removal conflict's known answer (testvectors/sync/change-records.json, `removal`, written by
/// the independent testvectors/independent/change_record.py from SECURITY.md §19.3): its records in
/// every order keep the document with the unseen typing and make exactly the conflict it names.
@Suite struct RemovalConflictVectorTests {
    @Test func theRecordsInAnyOrderMakeTheNamedRemovalConflict() throws {
        let removal = try ChangeRecordVectors.load().removal
        let keys = try ChangeRecordTests().keys
        let records = removal.records.map(\.record.bytes)
        #expect(records.count == 3)
        let project = try ChangeRecordCodec.parse(records[0]).project
        let document = try NodeID(hex: removal.document)
        for order in [[0, 1, 2], [0, 2, 1], [2, 1, 0], [1, 2, 0]] {
            var replica = SyncReplica(project: project, author: nil, devices: keys)
            for index in order { replica.receive(records[index]) }
            #expect(replica.refusals.isEmpty, "order \(order)")
            #expect(replica.documents == [document], "order \(order)")
            #expect(replica.content(of: document).blocks.map(\.text) == [removal.text])
            #expect(replica.conflicts().map { ChangeRecordTests.describe(.conflict($0)) } == [removal.conflict.described], "order \(order)")
        }
    }
}

/// Whose side each sync conflict's branch holds (`SyncReplica.sides`, what `vaultctl conflicts` and
/// `sync now` say: "Med, block 1: kept desk's; yours is branch 3"), for a removal as for an edit.
@Suite struct RemovalConflictSidesTests {
    /// A document removed on device 0 while device 1 rewrote a paragraph: the branch holds device
    /// 0's side (the removal), the document device 1's. Before: neither was named ("kept one side;
    /// the other side is branch 1"), the name holding the removal's record, not a block write's.
    @Test func aRemovalConflictNamesTheRemovingDeviceAsTheBranchsAndTheEditingOneAsKept() throws {
        var (fleet, _, _) = try RemovalConflictTests.removedWhileEdited()
        var generator = SeededGenerator(seed: 20)
        fleet.healAll(&generator)
        let remover = try #require(fleet.replicas[0].author?.device), editor = try #require(fleet.replicas[1].author?.device)
        for device in 0..<2 {
            let conflicts = fleet.replicas[device].conflicts()
            #expect(conflicts.count == 1 && conflicts.first?.losing == .deleted)
            #expect(fleet.replicas[device].sides(of: conflicts) == [try #require(conflicts.first).branch: ConflictSides(kept: editor, branched: remover)])
        }
    }

    /// A block deleted on one device and edited on the other: a block conflict, whose sides were
    /// named already (the losing write, deletion or edit, is a write of the block).
    @Test func aBlockDeletedOnOneDeviceAndEditedOnTheOtherNamesBothSides() throws {
        var (fleet, document, blocks) = try ConflictResolutionTests.pair()
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [blocks[0], blocks[2]]))
        _ = try fleet.replicas[1].edit(document, to: ConflictResolutionTests.edited(blocks, 1, "two, rewritten at the desk"))
        var generator = SeededGenerator(seed: 21)
        fleet.healAll(&generator)
        let devices = try fleet.replicas.map { try #require($0.author?.device) }
        let conflicts = fleet.replicas[0].conflicts()
        let conflict = try #require(conflicts.first)
        #expect(conflicts.count == 1 && conflict.block == blocks[1].id)
        let deleter = conflict.losing == .deleted ? devices[0] : devices[1]
        let kept = deleter == devices[0] ? devices[1] : devices[0]
        #expect(fleet.replicas[0].sides(of: conflicts) == [conflict.branch: ConflictSides(kept: kept, branched: deleter)])
    }
}
