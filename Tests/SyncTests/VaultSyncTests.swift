import CryptoVault
import PrivilegedSession
import Testing
import TestSupport
@testable import Sync
import Writing

/// Sync inside a real vault (SECURITY.md §19.5): this device's edits become sealed, signed records
/// in the audited transaction; a peer's records are verified, stored sealed and written into the
/// writing model, a conflict becoming a syncConflict branch; hostile records are refused with their
/// reason and audited while honest ones in the same exchange are taken.
@Suite struct VaultSyncTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Clinic notes") }

    /// A document of three paragraphs written in the vault, committed, and received by the peer.
    func start() throws -> (document: NodeID, blocks: [Block], peer: SyncReplica) {
        let blocks = try ["intake", "observations", "plan"].map { Block(id: try BlockID.random(), kind: .paragraph, text: $0) }
        let document = try store { store in
            let node = try store.addNode(.scene, titled: "Session 1", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: blocks))
            return node.id
        }
        let record = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        var replica = SyncReplica(project: project.id, author: peer, devices: devices)
        #expect(replica.receive(record.encoded) == .applied(1))
        #expect(replica.content(of: document) == DocumentContent(blocks: blocks))
        return (document, blocks, replica)
    }

    @Test func aPeersEditsAreWrittenIntoTheDocumentAndAConflictBecomesABranch() throws {
        var (document, blocks, replica) = try start()
        var peerBlocks = blocks
        peerBlocks[0].text = "intake, from the desk"
        peerBlocks[2].text = "desk words"
        let peerRecord = try #require(try replica.edit(document, to: DocumentContent(blocks: peerBlocks)))
        var ourBlocks = blocks
        ourBlocks[2].text = "laptop words"
        try store { try $0.replaceDocumentContent(of: document, in: project.id, with: DocumentContent(blocks: ourBlocks)) }
        let ours = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        let receipt = try sync { try $0.receive([peerRecord.encoded], for: project.id) }
        // The block changed on both: one conflict (the lower-ranked side loses), joined by the vault's
        // record in the same receive, and one branch (SECURITY.md §19.3, merge rule v2).
        #expect(receipt == SyncReceipt(stored: 1, refused: [], documentsWritten: 1, branchesMade: 1, documents: [document]))
        replica.receive(ours.encoded)
        let content = try store { try $0.documentContent(of: document, in: project.id) }
        #expect(content == replica.content(of: document))
        #expect(content.blocks[0].text == "intake, from the desk")
        let branches = try store { try $0.branches(of: document, in: project.id) }
        #expect(branches.count == 1 && branches.allSatisfy { $0.kind == .syncConflict })
        // The branch is named by its conflict, as the peer (holding the same records, not yet the
        // vault's join: pending there) names it: the same id on every device (§19.5).
        #expect(Set(branches.map(\.id)) == Set(replica.pendingConflicts.map(\.branch)))
        let proposed = try branches.map { branch in try store { try $0.branchContent(branch.id, of: document, in: project.id) } }
        // Both replaced "plan": the document shows one side's text whole, the branch the other's.
        #expect(["desk words", "laptop words"].contains(content.blocks[2].text))
        #expect(Set(proposed.map { $0.blocks[2].text } + [content.blocks[2].text]) == ["desk words", "laptop words"])
        #expect(vault.recording.actions.filter { $0.hasPrefix("sync.") } ==
                ["sync.record-commit", "sync.record-commit", "sync.record-receive", "sync.record-commit", "sync.conflict-branch"])
        // The same exchange again changes nothing: the record is a replay, the branch is kept once.
        let again = try sync { try $0.receive([peerRecord.encoded], for: project.id) }
        #expect(again.refused.map(\.error.code) == [.replayedRecord])
        #expect(again.branchesMade == 0)
    }

    @Test func recordsAreSealedInTheProjectsCompartment() throws {
        var (document, blocks, replica) = try start()
        var edited = blocks
        edited[1].text = "a finding only the peer wrote, 7f3a9c"
        let record = try #require(try replica.edit(document, to: DocumentContent(blocks: edited)))
        _ = try sync { try $0.receive([record.encoded], for: project.id) }
        let bytes = vault.databaseFileBytes()
        #expect(!bytes.contains(subsequence: Array("7f3a9c".utf8)))
        #expect(!bytes.contains(subsequence: Array(record.encoded.prefix(64))))
        // And the vault rebuilds the same replica from what it sealed.
        let rebuilt = try sync { try $0.replica(of: project.id) }
        #expect(rebuilt.versionVector == replica.versionVector)
    }

    @Test func hostileRecordsAreRefusedWithTheirReasonAndAuditedWhileHonestOnesAreTaken() throws {
        var (document, blocks, replica) = try start()
        var edited = blocks
        edited[0].text = "honest edit"
        let honest = try #require(try replica.edit(document, to: DocumentContent(blocks: edited)))
        var forged = honest.encoded
        forged[forged.count - 1] ^= 1
        var stranger = SyncReplica(project: project.id, author: try SyncAuthor.random(), devices: [:])
        let (_, unknownDevice) = try stranger.createDocument(titled: "Not yours")
        var elsewhere = SyncReplica(project: try ProjectID.random(), author: peer, devices: [:])
        let (_, otherProject) = try elsewhere.createDocument(titled: "Another project")
        // Lamport time not after its parent's: a rewritten history.
        let backwards = try ChangeRecord.make(project: project.id, author: peer, counter: 2, lamport: 1, parents: [honest.parents[0]],
                                              operations: [.node(try NodeID.random(), .removed)])
        // Waits for a parent that never comes (as a cycle's records would).
        let orphan = try ChangeRecord.make(project: project.id, author: peer, counter: 3, lamport: 9, parents: [Array(repeating: 7, count: 32)],
                                           operations: [.node(try NodeID.random(), .removed)])
        let huge = [UInt8](repeating: 0x53, count: ChangeRecordCodec.maximumSize + 1)
        let cases: [([UInt8], SyncErrorCode)] = [
            (forged, .badSignature), (unknownDevice.encoded, .unknownDevice), (otherProject.encoded, .unknownCompartment),
            (backwards.encoded, .causalityViolation), (huge, .malformedRecord), (Array(honest.encoded.dropLast(3)), .malformedRecord),
            (orphan.encoded, .missingParents),
        ]
        let receipt = try sync { try $0.receive(cases.map(\.0) + [honest.encoded, honest.encoded], for: project.id) }
        #expect(receipt.stored == 1)
        #expect(Set(receipt.refused.map(\.error.code)) == Set(cases.map(\.1) + [.replayedRecord]))
        #expect(receipt.refused.count == cases.count + 1)
        let reasons = vault.recording.events.withLock { events in
            events.filter { $0.action == .syncRecordRefused }.flatMap { $0.details.filter { $0.name == "reason" }.map(\.value) }
        }
        #expect(Set(reasons) == Set(receipt.refused.map(\.error.code.rawValue)))
        #expect(try store { try $0.documentContent(of: document, in: project.id) }.blocks[0].text == "honest edit")
    }

    @Test func recordsForAProjectThisVaultDoesNotHoldAreRefusedAndAudited() throws {
        var elsewhere = SyncReplica(project: try ProjectID.random(), author: peer, devices: [:])
        let (_, record) = try elsewhere.createDocument(titled: "Someone else's")
        let receipt = try sync { try $0.receive([record.encoded], for: elsewhere.project) }
        #expect(receipt.refused.map(\.error.code) == [.unknownCompartment])
        #expect(vault.recording.actions.last == "sync.record-refused")
    }

    @Test func aPrivilegedProjectsRecordsAreReadOnlyInASessionOfItsCompartment() throws {
        let privileged = try vault.unlocked.createWritingProject(named: "Patient A", register: .healthcare, kind: .document)
        #expect(privileged.isPrivileged)
        let session = try PrivilegedProcessingSession.start(vault: vault.unlocked, compartment: privileged.compartment,
                                                            actor: "dr.osei", purpose: "sync")
        let record = try vault.unlocked.transaction { tx in
            let store = WritingStore(tx, access: .session(session))
            let node = try store.addNode(.scene, titled: "Visit", in: privileged.id)
            try store.replaceDocumentContent(of: node.id, in: privileged.id,
                                             with: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "history")]))
            return try VaultSync(store, author: author, devices: devices).commitLocalChanges(in: privileged.id)
        }
        #expect(record != nil)
        #expect(throws: WritingError(.privilegedSessionRequired, "")) { try sync { try $0.replica(of: privileged.id) } }
        let rebuilt = try vault.unlocked.transaction { tx in
            try VaultSync(WritingStore(tx, access: .session(session)), author: author, devices: devices).replica(of: privileged.id)
        }
        #expect(rebuilt.recordCount == 1)
    }
}
