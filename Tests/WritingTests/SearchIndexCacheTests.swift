import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
@testable import Writing

/// The search index a process keeps between searches (SearchIndexCache, SECURITY.md §15.4): a kept
/// index answers the next search without opening a block, and is never an answer the vault would
/// not give: a write to a document is folded in at the next search (that document alone opened
/// again), a project-wide restore drops it, a transaction that wrote does not keep what it built,
/// another connection's commit makes it stale, and a privileged project's goes with its session.
@Suite("Search: the index kept between searches")
struct SearchIndexCacheTests {
    static func write(_ texts: [String], titled title: String, in project: WritingProject, _ store: WritingStore) throws -> NodeID {
        let node = try store.addNode(.scene, titled: title, in: project.id)
        try store.replaceDocumentContent(of: node.id, in: project.id, with: try WritingFixture.paragraphs(texts))
        return node.id
    }

    static func search(_ text: String, in project: WritingProject, _ fixture: WritingFixture,
                       _ access: RecordAccess = .vault) throws -> [SearchHit] {
        try fixture.store(access) { try $0.search(try SearchQuery(parsing: text), in: project.id) }.hits
    }

    @Test("the second search answers from the kept index: no block is opened, writing.search is still recorded")
    func keptIndexAnswers() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project()
        _ = try fixture.store { try Self.write(["The grey boat."], titled: "Arrival", in: project, $0) }
        #expect(try Self.search("boat", in: project, fixture).count == 1)
        #expect(fixture.vault.recording.batches.withLock { $0.last } == ["record.open", "writing.search"], "the first search reads every block")
        #expect(SearchIndexCache.shared.holds(project.id))
        #expect(try Self.search("grey", in: project, fixture).count == 1)
        #expect(fixture.vault.recording.batches.withLock { $0.last } == ["writing.search"], "the kept index opens nothing")
        let entry = try #require(fixture.vault.recording.events.withLock { $0.last })
        #expect(entry.action == .writingSearch && entry.details == [.init("hits", "1")])
    }

    @Test("a write after a kept search is seen by the next search")
    func writeIsSeen() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project()
        let node = try fixture.store { try Self.write(["The grey boat."], titled: "Arrival", in: project, $0) }
        #expect(try Self.search("lighthouse", in: project, fixture).isEmpty)
        try fixture.store { store in
            try store.replaceDocumentContent(of: node, in: project.id, with: try WritingFixture.paragraphs(["The lighthouse."]))
        }
        #expect(try Self.search("lighthouse", in: project, fixture).map(\.document) == [node])
        #expect(try Self.search("boat", in: project, fixture).isEmpty)
        _ = try fixture.store { try Self.write(["Another lighthouse."], titled: "Departure", in: project, $0) }
        #expect(try Self.search("lighthouse", in: project, fixture).count == 2, "an added document is searched too")
    }

    /// The blocks the last transaction opened, by id in hex (its `record.open` entries name each record).
    static func openedBlocks(_ fixture: WritingFixture) -> Set<String> {
        let recording = fixture.vault.recording
        let count = recording.batches.withLock { $0.last?.count ?? 0 }
        let last = recording.events.withLock { Array($0.suffix(count)) }
        let records = last.filter { $0.action == .recordOpen }.flatMap { event in
            event.details.filter { $0.name == "records" }.flatMap { $0.value.split(separator: "\n") }
        }
        return Set(records.compactMap { record in
            let parts = record.split(separator: "/")
            return parts.count == 4 && parts[1] == "writing_blocks" ? String(parts[2]) : nil
        })
    }

    static func blockIDs(of document: NodeID, in project: WritingProject, _ fixture: WritingFixture) throws -> Set<String> {
        Set(try fixture.store { try $0.documentContent(of: document, in: project.id) }.blocks.map(\.id.hex))
    }

    @Test("a write is folded into the kept index: the next search opens only the written document, finds its new words and not its removed ones, and the other documents' hits stay")
    func writeFoldedIn() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project()
        let (arrival, keeper, gulls) = try fixture.store { store in
            (try Self.write(["The grey boat."], titled: "Arrival", in: project, store),
             try Self.write(["A lighthouse keeper."], titled: "Keeper", in: project, store),
             try Self.write(["Grey gulls over the quay.", "Rope and salt."], titled: "Gulls", in: project, store))
        }
        #expect(try Self.search("grey", in: project, fixture).map(\.document) == [arrival, gulls])
        #expect(Self.openedBlocks(fixture).count == 4, "the first search reads every block")
        _ = try fixture.store { store in
            try store.replaceDocumentContent(of: arrival, in: project.id, with: try WritingFixture.paragraphs(["The red lighthouse."]))
        }
        #expect(SearchIndexCache.shared.holds(project.id), "a document's write keeps the index, to be updated")
        #expect(try Self.search("lighthouse", in: project, fixture).map(\.document) == [arrival, keeper], "the new words, in reading order")
        #expect(Self.openedBlocks(fixture) == (try Self.blockIDs(of: arrival, in: project, fixture)), "only the written document is opened again")
        #expect(try Self.search("boat", in: project, fixture).isEmpty, "the removed word is gone")
        #expect(fixture.vault.recording.batches.withLock { $0.last } == ["writing.search"], "the updated index is kept: nothing opened")
        let grey = try Self.search("grey", in: project, fixture)
        #expect(grey.map(\.document) == [gulls] && grey.first?.blocks.map(\.snippet) == ["Grey gulls over the quay."], "another document's hit stays")
        #expect(try Self.search("\"rope and salt\"", in: project, fixture).map(\.document) == [gulls])
    }

    @Test("a document added, one moved and one removed: the next search opens only the added one, in the binder's new order")
    func binderChangesFoldedIn() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project()
        let (arrival, keeper) = try fixture.store { store in
            (try Self.write(["The grey boat."], titled: "Arrival", in: project, store),
             try Self.write(["A grey lighthouse."], titled: "Keeper", in: project, store))
        }
        #expect(try Self.search("grey", in: project, fixture).map(\.document) == [arrival, keeper])
        let dawn = try fixture.store { store in
            let dawn = try Self.write(["Grey dawn."], titled: "Dawn", in: project, store)
            try store.moveNode(dawn, in: project.id, under: nil, before: arrival)
            try store.removeNode(keeper, in: project.id)
            return dawn
        }
        #expect(try Self.search("grey", in: project, fixture).map(\.document) == [dawn, arrival], "the added document first, the removed one gone")
        #expect(Self.openedBlocks(fixture) == (try Self.blockIDs(of: dawn, in: project, fixture)), "only the added document is opened")
        #expect(try Self.search("lighthouse", in: project, fixture).isEmpty)
    }

    @Test("a project restored to a version drops the kept index, and the next search finds the restored text; a rename keeps it as it was")
    func projectWideChanges() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project()
        let arrival = try fixture.store { try Self.write(["The grey boat."], titled: "Arrival", in: project, $0) }
        let version = try fixture.store { try $0.createProjectSnapshot(of: project.id) }
        #expect(try Self.search("grey", in: project, fixture).count == 1)
        try fixture.store { try $0.rename(project.id, to: "Renamed") }
        #expect(SearchIndexCache.shared.holds(project.id))
        #expect(try Self.search("grey", in: project, fixture).count == 1)
        #expect(Self.openedBlocks(fixture).isEmpty, "a rename touches no document: nothing opened")
        _ = try fixture.store { try $0.replaceDocumentContent(of: arrival, in: project.id, with: try WritingFixture.paragraphs(["The red lighthouse."])) }
        #expect(try Self.search("lighthouse", in: project, fixture).map(\.document) == [arrival])
        try fixture.store { _ = try $0.restoreProject(project.id, to: version.id) }
        #expect(!SearchIndexCache.shared.holds(project.id), "a project-wide restore dropped the kept index")
        #expect(try Self.search("grey", in: project, fixture).map(\.document) == [arrival])
        #expect(try Self.search("lighthouse", in: project, fixture).isEmpty)
    }

    @Test("an index built after a write in a transaction that rolls back is not kept")
    func rolledBackWriteLeavesNoIndex() throws {
        struct Abandon: Error {}
        let fixture = try WritingFixture()
        let project = try fixture.project()
        _ = try fixture.store { try Self.write(["The grey boat."], titled: "Arrival", in: project, $0) }
        #expect(throws: Abandon.self) {
            try fixture.store { store in
                _ = try Self.write(["The lighthouse."], titled: "Draft", in: project, store)
                #expect(try store.search(try SearchQuery(parsing: "lighthouse"), in: project.id).hits.count == 1)
                throw Abandon()
            }
        }
        #expect(!SearchIndexCache.shared.holds(project.id), "no search before the transaction: nothing is kept")
        #expect(try Self.search("lighthouse", in: project, fixture).isEmpty, "the rolled-back document is not found")
        // Again with an index kept from before: the one the transaction updated is not kept in its place.
        #expect(throws: Abandon.self) {
            try fixture.store { store in
                _ = try Self.write(["The lighthouse."], titled: "Draft", in: project, store)
                #expect(try store.search(try SearchQuery(parsing: "lighthouse"), in: project.id).hits.count == 1)
                throw Abandon()
            }
        }
        #expect(try Self.search("lighthouse", in: project, fixture).isEmpty, "the rolled-back document is not found")
        #expect(try Self.search("boat", in: project, fixture).count == 1)
    }

    @Test("a commit through another connection to the vault makes the kept index stale")
    func otherConnectionIsSeen() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project()
        _ = try fixture.store { try Self.write(["The grey boat."], titled: "Arrival", in: project, $0) }
        #expect(try Self.search("lighthouse", in: project, fixture).isEmpty)
        let other = try fixture.vault.reopen().unlock(with: .passphrase(fixture.vault.passphrase))
        let node = try other.transaction { tx in try Self.write(["The lighthouse."], titled: "Elsewhere", in: project, WritingStore(tx)) }
        #expect(try Self.search("lighthouse", in: project, fixture).map(\.document) == [node])
    }

    @Test("a privileged project's kept index is gone when its session ends, and the ended session cannot search")
    func privilegedIndexEndsWithSession() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project("Intake", register: .healthcare, kind: .document)
        let session = try fixture.session(of: project)
        _ = try fixture.store(.session(session)) { try Self.write(["Reports insomnia."], titled: "Session 1", in: project, $0) }
        #expect(try Self.search("insomnia", in: project, fixture, .session(session)).count == 1)
        #expect(SearchIndexCache.shared.holds(project.id))
        try session.end()
        #expect(!SearchIndexCache.shared.holds(project.id), "the index went with the session")
        let refused = #expect(throws: PrivilegedSessionError.self) { try Self.search("insomnia", in: project, fixture, .session(session)) }
        #expect(refused?.code == .sessionEnded)
        let refusedWithout = #expect(throws: WritingError.self) { try Self.search("insomnia", in: project, fixture) }
        #expect(refusedWithout?.code == .privilegedSessionRequired)
        let next = try fixture.session(of: project)
        #expect(try Self.search("insomnia", in: project, fixture, .session(next)).count == 1)
        #expect(fixture.vault.recording.batches.withLock { $0.last }?.contains("record.open") == true, "a new session builds its own index")
    }

    @Test("dropSearchIndexes drops the vault's kept indexes at once")
    func dropOnLock() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project()
        _ = try fixture.store { try Self.write(["The grey boat."], titled: "Arrival", in: project, $0) }
        _ = try Self.search("boat", in: project, fixture)
        #expect(SearchIndexCache.shared.holds(project.id))
        fixture.unlocked.dropSearchIndexes()
        #expect(!SearchIndexCache.shared.holds(project.id))
    }
}
