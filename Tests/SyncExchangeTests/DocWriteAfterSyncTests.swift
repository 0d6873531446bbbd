import CryptoVault
import Sync
import Testing
import TestSupport
import Writing

/// A write of a document's whole text without a base (`vaultctl doc write`, `WritingStore.writeDocument`)
/// keeps what it replaces as a version unless the document is exactly what this device's last
/// write left (SECURITY.md §15.6; attack review s6, P6). Words a sync brought after the writer's
/// own write, with no snapshot of them taken anywhere (the desk's console saved fewer than 500
/// characters), are such words: before, the writer's counters since its last write said "own
/// words", the write replaced them without a version, and its commit sent their deletion to the desk.
@Suite(.serialized) struct DocWriteAfterSyncTests {
    typealias F = SyncExchangeFixture

    static func paragraphs(_ texts: [String]) throws -> DocumentContent {
        DocumentContent(blocks: try texts.map { Block(id: try BlockID.random(), kind: .paragraph, text: $0) })
    }

    /// The writer's file, written twice with `doc write` (no --base).
    static let file = ["one", "two", "three, the writer's"]

    static func write(_ f: F, _ project: WritingProject, _ document: NodeID, _ texts: [String]) throws -> DocumentWrite {
        try F.store(f.laptop, project) { try $0.writeDocument(try paragraphs(texts), of: document, in: project.id, base: nil) }
    }

    static func version(_ vault: TestVault, _ project: WritingProject, _ document: NodeID, _ snapshot: SnapshotID) throws -> [String] {
        try F.store(vault, project) { try $0.snapshotContent(snapshot, of: document, in: project.id).blocks.map(\.text) }
    }

    /// Appends a paragraph through the edit path (the console's save, `snippet insert`).
    static func append(_ vault: TestVault, _ project: WritingProject, _ document: NodeID, _ text: String) throws -> EditedContent {
        try F.store(vault, project) { store in
            var content = try store.documentContent(of: document, in: project.id)
            content.blocks.append(Block(id: try BlockID.random(), kind: .paragraph, text: text))
            return try store.editDocumentContent(of: document, in: project.id, with: content)
        }
    }

    /// The laptop writes its file, syncs; the desk's console saves a short paragraph (the edit path:
    /// no snapshot under 500 characters), synced back. The laptop's and the desk's project, the document.
    static func deskParagraphSyncedAfterTheWritersWrite(_ f: F) throws -> (WritingProject, WritingProject, NodeID) {
        let project = try F.project(f.laptop, "Field notes")
        let document = try F.document(f.laptop, in: project, "Day one", ["one", "two"])
        _ = try write(f, project, document, file)
        try f.syncLaptop()
        let deskProject = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        let saved = try append(f.desk, deskProject, document, "four, the desk's")
        try #require(saved.autoSnapshots.isEmpty, "the desk took a snapshot: the case needs words no snapshot holds")
        try f.syncLaptop()
        return (project, deskProject, document)
    }

    @Test func wordsASyncBroughtAfterTheWritersOwnWriteAreKeptAsAVersionOnBothDevices() throws {
        let f = try F()
        let (project, deskProject, document) = try Self.deskParagraphSyncedAfterTheWritersWrite(f)
        try #require(try F.texts(f.laptop, project.id, document).contains("four, the desk's"))
        // The writer writes its file again, without --base: the document is replaced, the desk's paragraph kept as a version.
        let written = try Self.write(f, project, document, Self.file + ["five, the writer's"])
        #expect(try F.texts(f.laptop, project.id, document) == Self.file + ["five, the writer's"])
        let kept = try #require(written.before, "no version keeps the desk's paragraph the write replaced")
        #expect(try Self.version(f.laptop, project, document, kept).contains("four, the desk's"))
        // The version goes with the write's records: the desk, whose document lost the paragraph, holds it too.
        try f.syncLaptop()
        #expect(!(try F.texts(f.desk, project.id, document)).contains("four, the desk's"))
        #expect(try Self.version(f.desk, deskProject, document, kept).contains("four, the desk's"))
    }

    /// A partial edit between the sync and the write (a snippet inserted, the console's block save)
    /// writes the document back through the edit path with the synced words still in it; it is not
    /// the writer's whole text, so the mark stays and the next no-base write still keeps them
    /// (attack review s7, N3: before, any edit cleared the mark and the paragraph was lost).
    @Test func aPartialEditAfterTheSyncLeavesTheMarkSoTheNextWriteStillKeepsTheSyncedWords() throws {
        let f = try F()
        let (project, _, document) = try Self.deskParagraphSyncedAfterTheWritersWrite(f)
        // The laptop inserts a short snippet at the end, as `vaultctl snippet insert` does.
        let inserted = try Self.append(f.laptop, project, document, "Next appointment:")
        try #require(inserted.autoSnapshots.isEmpty, "the snippet took a snapshot: the case needs words no snapshot holds")
        let written = try Self.write(f, project, document, Self.file)
        let kept = try #require(written.before, "no version keeps the desk's paragraph the write replaced")
        #expect(try Self.version(f.laptop, project, document, kept).contains("four, the desk's"))
        // That whole write cleared the mark: the writer's next write of its own file keeps no version.
        #expect(try Self.write(f, project, document, Self.file + ["four"]).before == nil)
    }

    /// The writer's own run of writes, nothing synced in between, keeps no version per write (the
    /// automatic snapshots cover them as ever): the mark is a sync's, not every write's.
    @Test func theWritersOwnRunOfWritesKeepsNoVersionPerWrite() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Field notes")
        let document = try F.document(f.laptop, in: project, "Day one", ["one", "two"])
        #expect(try Self.write(f, project, document, Self.file).before != nil, "the first write replaces words not written here")
        try f.syncLaptop()
        #expect(try Self.write(f, project, document, Self.file + ["four"]).before == nil)
        #expect(try Self.write(f, project, document, Self.file + ["four", "five"]).before == nil)
    }
}
