import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
@testable import Writing

/// The search index a process keeps between searches (SearchIndexCache, SECURITY.md §15.4): a kept
/// index answers the next search without opening a block, and is never an answer the vault would
/// not give: any write drops it, a transaction that wrote does not keep what it built, another
/// connection's commit makes it stale, and a privileged project's goes with its session.
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
        #expect(!SearchIndexCache.shared.holds(project.id), "the write dropped the kept index")
        #expect(try Self.search("lighthouse", in: project, fixture).map(\.document) == [node])
        #expect(try Self.search("boat", in: project, fixture).isEmpty)
        _ = try fixture.store { try Self.write(["Another lighthouse."], titled: "Departure", in: project, $0) }
        #expect(try Self.search("lighthouse", in: project, fixture).count == 2, "an added document is searched too")
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
        #expect(!SearchIndexCache.shared.holds(project.id))
        #expect(try Self.search("lighthouse", in: project, fixture).isEmpty, "the rolled-back document is not found")
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
