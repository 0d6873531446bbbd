import CryptoVault
import Foundation
import PeerChannel
import Sync
import Testing
import TestSupport
import Writing

/// An open full-screen editor holds sync's changes to its document (issue 17, review 17 F10): the
/// records are stored and merged, but the document stays as the writer has it until the editor
/// closes (or its lease runs out: a client that vanished holds nothing for long); the writer's own
/// edits meanwhile still go to the other device, merged with what came, and then both sides'
/// words are in the document.
@Suite(.serialized) struct HeldEditorTests {
    typealias F = SyncExchangeFixture

    /// A project of three paragraphs made on the laptop and synced to the desk.
    static func synced() throws -> (F, WritingProject, WritingProject, NodeID) {
        let f = try F()
        let project = try F.project(f.laptop, "Field notes")
        let document = try F.document(f.laptop, in: project, "Day one", ["one", "two", "three"])
        try f.syncLaptop()
        let deskProject = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        return (f, project, deskProject, document)
    }

    static func sync(_ f: F, _ coordinator: SyncCoordinator) throws {
        _ = try SyncInitiator(vault: f.laptop.unlocked, transport: try f.transport(), coordinator: coordinator).run()
    }

    @Test func aChangeArrivingUnderAnOpenEditorWaitsForItToCloseAndTheWritersEditsStillGo() throws {
        let (f, project, deskProject, document) = try Self.synced()
        let coordinator = SyncCoordinator(interval: 0)
        let token = coordinator.editorOpened(document)
        try F.edit(f.desk, deskProject, document, block: 0, to: "one, from the desk")
        try Self.sync(f, coordinator)
        #expect(try F.texts(f.laptop, project.id, document) == ["one", "two", "three"], "the change was written under the open editor")
        #expect(HeldDocuments.shared.isHolding(document))
        // The writer goes on writing: the save is merged with what came and reaches the desk.
        try F.edit(f.laptop, project, document, block: 2, to: "three, from the writer")
        try Self.sync(f, coordinator)
        #expect(try F.texts(f.desk, project.id, document) == ["one, from the desk", "two", "three, from the writer"])
        #expect(try F.texts(f.laptop, project.id, document) == ["one", "two", "three, from the writer"], "the writer's document moved under the editor")
        coordinator.editorClosed(token)
        #expect(try F.texts(f.laptop, project.id, document) == ["one, from the desk", "two", "three, from the writer"])
        #expect(!HeldDocuments.shared.isHolding(document))
        // Nothing was left to undo: the next sync changes nothing on either side.
        try Self.sync(f, coordinator)
        #expect(try F.texts(f.desk, project.id, document) == ["one, from the desk", "two", "three, from the writer"])
        #expect(try F.texts(f.laptop, project.id, document) == ["one, from the desk", "two", "three, from the writer"])
    }

    @Test func anEditorWhoseClientVanishedHoldsNothingOnceItsLeaseRunsOut() throws {
        let (f, project, deskProject, document) = try Self.synced()
        let coordinator = SyncCoordinator(interval: 0)
        _ = coordinator.editorOpened(document, leaseSeconds: 0.5)   // never renewed, never closed
        try F.edit(f.desk, deskProject, document, block: 1, to: "two, from the desk")
        try Self.sync(f, coordinator)
        #expect(try F.texts(f.laptop, project.id, document) == ["one", "two", "three"])
        let applied = BackgroundSyncTests.eventually(10) {
            (try? F.texts(f.laptop, project.id, document)) == ["one", "two, from the desk", "three"]
        }
        #expect(applied, "the held change was never written after the lease ran out")
        #expect(coordinator.openDocuments.isEmpty)
        // Forgotten once the step that wrote it has committed (a moment after its text shows).
        #expect(BackgroundSyncTests.eventually(5) { !HeldDocuments.shared.isHolding(document) })
    }

    @Test func whereTheWriterAndTheDeskChangedTheSameParagraphTheWritersIsKeptAndTheDesksIsABranch() throws {
        let (f, project, deskProject, document) = try Self.synced()
        let coordinator = SyncCoordinator(interval: 0)
        let token = coordinator.editorOpened(document)
        try F.edit(f.desk, deskProject, document, block: 1, to: "two, as the desk wrote it")
        try Self.sync(f, coordinator)
        try F.edit(f.laptop, project, document, block: 1, to: "two, as the writer wrote it")
        try Self.sync(f, coordinator)
        coordinator.editorClosed(token)
        #expect(try F.texts(f.laptop, project.id, document) == ["one", "two, as the writer wrote it", "three"])
        let proposals = try F.store(f.laptop, project) { store in
            try store.branches(of: document, in: project.id).filter { $0.kind == .syncConflict }.map {
                try store.branchContent($0.id, of: document, in: project.id).blocks.map(\.text)
            }
        }
        #expect(proposals.contains(["one", "two, as the desk wrote it", "three"]), "the desk's words are in no branch: \(proposals)")
        try Self.sync(f, coordinator)
        #expect(try F.texts(f.desk, project.id, document) == ["one", "two, as the writer wrote it", "three"])
    }
}
