import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// The replicas kept between sync steps (`SyncReplicaCache`, SECURITY.md §19.5): a step extends the
/// kept replica and reads only the documents written since, and anything it does not expect (a
/// record row gone, another connection's write, a step that rolled back) makes it read everything
/// again, so a cached step never misses a change: after it, an uncached commit (which reads every
/// document) finds nothing left.
@Suite struct SyncReplicaCacheTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor
    /// The suite's own cache (the process's is shared by every suite running at once).
    let cache = SyncReplicaCache()

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Novel") }

    /// A step with the cache, as the exchange runs one.
    func cached<Result>(_ body: (VaultSync) throws -> Result) throws -> Result {
        try cache.transaction(in: vault.unlocked) { tx, staging in
            try body(VaultSync(WritingStore(tx), author: author, devices: devices, replicas: staging))
        }
    }

    /// `documents` documents of `paragraphs` paragraphs each, made and committed with the cache.
    func start(documents: Int = 4, paragraphs: Int = 5) throws -> [NodeID] {
        let nodes = try store { store in
            try (0..<documents).map { index in
                let node = try store.addNode(.scene, titled: "Chapter \(index + 1)", in: project.id)
                try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: try (0..<paragraphs).map {
                    Block(id: try BlockID.random(), kind: .paragraph, text: "chapter \(index) paragraph \($0)")
                }))
                return node.id
            }
        }
        _ = try #require(try cached { try $0.commitLocalChanges(in: project.id) })
        return nodes
    }

    func edit(_ document: NodeID, _ text: String, paragraph: Int = 0) throws {
        try store { store in
            var content = try store.documentContent(of: document, in: project.id)
            content.blocks[paragraph].text = text
            try store.replaceDocumentContent(of: document, in: project.id, with: content)
        }
    }

    /// The block records a step opened, counted from its `record.open` entries.
    func blocksOpened<Result>(_ body: () throws -> Result) throws -> (Result, Int) {
        let before = vault.recording.events.withLock { $0.count }
        let result = try body()
        let opened = vault.recording.events.withLock { events in
            events[before...].filter { $0.action == .recordOpen }.flatMap(\.details).filter { $0.name == "records" }
                .flatMap { $0.value.split(separator: "\n") }.filter { $0.hasPrefix("writing/writing_blocks/") }.count
        }
        return (result, opened)
    }

    @Test func aCommitReadsOnlyTheDocumentsWrittenSinceAndMissesNothing() throws {
        let documents = try start()
        #expect(cache.count(of: vault.unlocked) == 1)
        try edit(documents[2], "only this paragraph changed")
        let (record, opened) = try blocksOpened { try cached { try $0.commitLocalChanges(in: project.id) } }
        let committed = try #require(record)
        #expect(opened == 5, "one document of five paragraphs read, not four")
        #expect(committed.operations.allSatisfy {
            if case .block(let document, _, _) = $0 { return document == documents[2] }
            if case .text(let document, _, _) = $0 { return document == documents[2] }
            return true
        })
        // Nothing was missed: an uncached commit reading every document finds nothing to commit.
        #expect(try sync { try $0.commitLocalChanges(in: project.id) } == nil)
        // And with nothing written, a cached commit reads no block at all.
        let (none, quiet) = try blocksOpened { try cached { try $0.commitLocalChanges(in: project.id) } }
        #expect(none == nil && quiet == 0)
    }

    @Test func aPeersRecordsExtendTheKeptReplicaAndOnlyTheDocumentsTheyTouchAreWritten() throws {
        let documents = try start()
        var replica = try sync { try $0.replica(of: project.id) }.withAuthor(peer)
        var content = replica.content(of: documents[1])
        content.blocks[3].text = "typed on the peer"
        let edit = try #require(try replica.edit(documents[1], to: content))
        let receipt = try cached { try $0.receive([edit.encoded], for: project.id) }
        #expect(receipt.stored == 1 && receipt.documentsWritten == 1)
        #expect(try store { try $0.documentContent(of: documents[1], in: project.id) }.blocks[3].text == "typed on the peer")
        // The receive left the documents agreeing with the replica: the next commit reads nothing.
        let (record, opened) = try blocksOpened { try cached { try $0.commitLocalChanges(in: project.id) } }
        #expect(record == nil && opened == 0)
        #expect(try sync { try $0.commitLocalChanges(in: project.id) } == nil)
    }

    @Test func anotherConnectionsWriteIsFoundByReadingEverything() throws {
        let documents = try start()
        // Another connection (another process, say) edits a document: no note of it reaches this process.
        let other = try Vault.open(at: vault.directory, journal: RecordingJournal(), modules: vault.modules)
        let unlocked = try other.unlock(with: .passphrase(vault.passphrase))
        try unlocked.transaction { tx in
            let store = WritingStore(tx)
            var content = try store.documentContent(of: documents[3], in: project.id)
            content.blocks[4].text = "written by another process"
            try store.replaceDocumentContent(of: documents[3], in: project.id, with: content)
        }
        let (record, opened) = try blocksOpened { try cached { try $0.commitLocalChanges(in: project.id) } }
        #expect(opened == 20, "every document read again")
        let committed = try #require(record)
        #expect(committed.operations.contains { if case .text(documents[3], _, _) = $0 { return true } else { return false } })
        #expect(try sync { try $0.commitLocalChanges(in: project.id) } == nil)
    }

    @Test func aRecordRowGoneIsDamageEvenWithAKeptReplica() throws {
        let documents = try start()
        try edit(documents[0], "a second record")
        _ = try #require(try cached { try $0.commitLocalChanges(in: project.id) })
        try vault.tamper("DELETE FROM sync_records WHERE counter = 1")
        try edit(documents[0], "a third")
        #expect(throws: SyncError(.damagedSyncState, "")) { try cached { try $0.commitLocalChanges(in: project.id) } }
    }

    @Test func aStepThatRolledBackLeavesNothingKeptAndItsEditIsCommittedAgain() throws {
        let documents = try start()
        try edit(documents[1], "committed in a step that then failed")
        struct Failed: Error {}
        #expect(throws: Failed.self) {
            try cached { sync in
                _ = try sync.commitLocalChanges(in: project.id)
                throw Failed()
            }
        }
        // The rolled-back record is not held: the next commit makes it again, as this device's second.
        let record = try #require(try cached { try $0.commitLocalChanges(in: project.id) })
        #expect(record.counter == 2)
        #expect(try sync { try $0.state(of: project.id) } == .ready(records: 2))
        #expect(try sync { try $0.commitLocalChanges(in: project.id) } == nil)
    }

    @Test func recordsStoredByAStepWithoutTheCacheAreTakenAndTheirDocumentsRead() throws {
        let documents = try start()
        try edit(documents[0], "committed without the cache")
        _ = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        try edit(documents[2], "then with it")
        let record = try #require(try cached { try $0.commitLocalChanges(in: project.id) })
        #expect(record.counter == 3)
        #expect(try sync { try $0.commitLocalChanges(in: project.id) } == nil)
    }

    @Test func aLockedVaultsReplicasAreDropped() throws {
        _ = try start()
        #expect(cache.count(of: vault.unlocked) == 1)
        cache.drop(vault.unlocked)
        #expect(cache.count(of: vault.unlocked) == 0)
    }
}

extension SyncReplica {
    /// This replica's records and state, committing as `author` (a peer holding the same records).
    func withAuthor(_ author: SyncAuthor) throws -> SyncReplica {
        var copy = SyncReplica(project: project, author: author, devices: devices)
        for record in records(missingFrom: [:]) { copy.receive(record) }
        return copy
    }
}
