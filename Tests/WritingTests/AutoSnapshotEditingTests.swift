import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Writing

/// The automatic snapshots on the editing path (`WritingStore.editDocumentContent`, what `vaultctl
/// doc write` and the console's save call), with the clock moved by hand: each edit is its own
/// transaction, and the vault is opened again between edits as a new `vaultctl` process opens it, so
/// the counters the rule needs are those the store kept.
@Suite struct AutoSnapshotEditingTests {
    let fixture: WritingFixture
    let time = ManualClock()
    let project: WritingProject
    let first: NodeID, second: NodeID

    init() throws {
        let fixture = try WritingFixture()
        let project = try fixture.project("Notes", register: .fiction, kind: .document)
        (first, second) = try fixture.store { store in
            (try store.addNode(.scene, titled: "One", in: project.id).id, try store.addNode(.scene, titled: "Two", in: project.id).id)
        }
        self.fixture = fixture
        self.project = project
    }

    /// One edit as a new process makes it: the vault opened and unlocked again, one transaction.
    func edit(_ document: NodeID, _ texts: [String]) throws -> [AutoSnapshot] {
        let unlocked = try fixture.vault.reopen().unlock(with: .passphrase(fixture.vault.passphrase))
        return try unlocked.transaction { tx in
            let store = WritingStore(tx, clock: time.vaultClock)
            let current = try store.documentContent(of: document, in: project.id)
            let blocks = try texts.enumerated().map { index, text in
                Block(id: index < current.blocks.count ? current.blocks[index].id : try BlockID.random(), kind: .paragraph, text: text)
            }
            return try store.editDocumentContent(of: document, in: project.id, with: DocumentContent(blocks: blocks)).autoSnapshots
        }
    }

    func snapshots(_ document: NodeID) throws -> [Snapshot] {
        try fixture.store { try $0.snapshots(of: document, in: project.id) }
    }

    @Test("500 characters of change over edits in separate processes take one automatic snapshot, of the content then, on exactly the edit that reaches them")
    func fiveHundredCharactersAcrossProcesses() throws {
        let text = String(repeating: "a", count: 200)
        #expect(try edit(first, [text]).isEmpty)
        #expect(try edit(first, [text, text]).isEmpty)
        // 200 + 200 + 99: one short.
        #expect(try edit(first, [text, text, String(repeating: "b", count: 99)]).isEmpty)
        let taken = try edit(first, [text, text, String(repeating: "b", count: 100)])
        #expect(taken.map(\.triggers) == [[.characterCount]] && taken.map(\.snapshot.document) == [first])
        #expect(try snapshots(first).map(\.id) == taken.map(\.snapshot.id) && taken[0].snapshot.origin == .automatic)
        #expect(try fixture.store { try $0.snapshotContent(taken[0].snapshot.id, of: first, in: project.id) }.blocks.map(\.text).last?.count == 100)
        // The count starts again: a replacement of 3 characters by 5 adds 8.
        #expect(try edit(first, [text, text, String(repeating: "b", count: 97) + "ccccc"]).isEmpty)
    }

    @Test("three minutes of active editing, edits 20 s apart in separate processes, take a snapshot on the edit that reaches 180 s; a pause adds nothing")
    func threeMinutesAcrossProcesses() throws {
        var words: [String] = ["Start."]
        #expect(try edit(first, words).isEmpty)
        for step in 1...8 {
            time.advance(20)
            words.append("w\(step).")
            #expect(try edit(first, words).isEmpty, "after \(step * 20) s")
        }
        // A pause longer than 30 s is not active time.
        time.advance(300)
        words.append("back.")
        #expect(try edit(first, words).isEmpty)
        time.advance(20)
        words.append("last.")
        let taken = try edit(first, words)
        #expect(taken.map(\.triggers) == [[.activeEditing]])
        #expect(try snapshots(first).count == 1)
    }

    @Test("writing another document of the project snapshots the one left when it changed since its last snapshot, and not when it did not")
    func switchingDocuments() throws {
        #expect(try edit(first, ["One."]).isEmpty)
        let left = try edit(second, ["Two."])
        #expect(left.map(\.triggers) == [[.documentSwitch]] && left.map(\.snapshot.document) == [first])
        // Back to the first: the second changed, so it is snapshotted; then the first, unchanged since, is not.
        #expect(try edit(first, ["One, again."]).map(\.snapshot.document) == [second])
        try fixture.store { try $0.createSnapshot(of: first, in: project.id, titled: "Checked") }
        #expect(try edit(second, ["Two, again."]).isEmpty, "a titled snapshot since the last edit covers it")
        #expect(try snapshots(first).map(\.origin) == [.automatic, .titled])
        #expect(try snapshots(second).map(\.origin) == [.automatic])
    }

    @Test("a write that changes nothing is no edit; a document removed since its last edit does not stop the next")
    func unchangedWritesAndRemovedDocuments() throws {
        let text = String(repeating: "x", count: 499)
        #expect(try edit(first, [text]).isEmpty)
        #expect(try edit(first, [text]).isEmpty)
        try fixture.store { try $0.removeNode(first, in: project.id) }
        #expect(try edit(second, ["y"]).isEmpty, "the removed document is neither snapshotted nor counted")
    }

    @Test("the counters are kept per project and device as clear numbers, never text; replaceDocumentContent (a restore, a peer's edit) counts nothing")
    func keptState() throws {
        #expect(try edit(first, ["Private words."]).isEmpty)
        try fixture.store { try $0.replaceDocumentContent(of: second, in: project.id, with: try WritingFixture.paragraphs([String(repeating: "z", count: 600)])) }
        let rows = try Database(path: fixture.vault.vault.databasePath, create: false, readOnly: true)
            .query("SELECT hex(node_id) AS node, characters, edits FROM writing_auto_snapshots")
        #expect(try rows.map { [try $0.text("node"), String(try $0.integer("characters")), String(try $0.integer("edits"))] }
                == [[first.hex.uppercased(), "14", "1"]])
        #expect(!fixture.vault.databaseFileBytes().contains(subsequence: Array("Private words.".utf8)))
    }
}
