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

    /// The lease runs on the test's own time (`ManualTime`): however long the desk's edit and the
    /// sync take on a loaded machine, the lease lapses only when the test moves time past it.
    @Test func anEditorWhoseClientVanishedHoldsNothingOnceItsLeaseRunsOut() throws {
        let (f, project, deskProject, document) = try Self.synced()
        let time = ManualTime()
        let coordinator = SyncCoordinator(interval: 0, clock: time.clock, timer: time.timer)
        _ = coordinator.editorOpened(document, leaseSeconds: 0.5)   // never renewed, never closed
        try F.edit(f.desk, deskProject, document, block: 1, to: "two, from the desk")
        try Self.sync(f, coordinator)
        #expect(try F.texts(f.laptop, project.id, document) == ["one", "two", "three"])
        try time.advance(by: 0.4)
        #expect(try F.texts(f.laptop, project.id, document) == ["one", "two", "three"], "written before the lease ran out")
        #expect(HeldDocuments.shared.isHolding(document) && coordinator.openDocuments == [document])
        try time.advance(by: 0.2)
        let applied = BackgroundSyncTests.eventually(10) {
            (try? F.texts(f.laptop, project.id, document)) == ["one", "two, from the desk", "three"]
        }
        #expect(applied, "the held change was never written after the lease ran out")
        #expect(coordinator.openDocuments.isEmpty)
        // Forgotten once the step that wrote it has committed (a moment after its text shows).
        #expect(BackgroundSyncTests.eventually(5) { !HeldDocuments.shared.isHolding(document) })
    }

    /// The laptop's daemon holding `document` for an open editor while the desk's words arrive, then
    /// killed (kill -9): a new process opens the vault again, with nothing of the old one's memory
    /// and no editor open yet. The page, still open, saves the writer's next words (its base is the
    /// store's text, so no 409).
    static func heldThenRestarted() throws -> (F, WritingProject, WritingProject, NodeID, UnlockedVault) {
        let (f, project, deskProject, document) = try Self.synced()
        let killed = SyncCoordinator(interval: 0)
        _ = killed.editorOpened(document)   // never closed: the process is gone
        try F.edit(f.desk, deskProject, document, block: 0, to: "one, from the desk")
        try Self.sync(f, killed)
        try #require(try F.texts(f.laptop, project.id, document) == ["one", "two", "three"])
        let restarted = try f.laptop.reopen().unlock(with: .passphrase(f.laptop.passphrase))
        try F.edit(f.laptop, project, document, block: 2, to: "three, from the writer")
        return (f, project, deskProject, document, restarted)
    }

    /// Attack review s6, P5: before, the hold was the process's memory, and the new process's
    /// commit took the store's text (without the desk's words) for the writer's deletion of them,
    /// which then left the desk too. The hold is the vault's: the commit merges from its base.
    @Test func aHoldOutlivesAKilledDaemonAndTheNextSaveKeepsTheDesksWordsOnBothDevices() throws {
        let (f, project, deskProject, document, restarted) = try Self.heldThenRestarted()
        _ = try SyncInitiator(vault: restarted, transport: try f.transport(), coordinator: SyncCoordinator(interval: 0)).run()
        let both = ["one, from the desk", "two", "three, from the writer"]
        #expect(try F.texts(f.desk, project.id, document) == both, "the desk's words were sent away as the writer's deletion")
        #expect(try F.texts(f.laptop, project.id, document) == both, "no editor is open in the new process: the document shows what came")
        // Nothing is held any more: the desk's next words reach the laptop's document at once.
        try F.edit(f.desk, deskProject, document, block: 1, to: "two, from the desk")
        _ = try SyncInitiator(vault: restarted, transport: try f.transport(), coordinator: SyncCoordinator(interval: 0)).run()
        #expect(try F.texts(f.laptop, project.id, document) == ["one, from the desk", "two, from the desk", "three, from the writer"])
    }

    /// The page's renewal is refused by the new daemon, so it opens its editor again: the document
    /// stays held across the restart, the writer's words still reach the desk merged, and both
    /// sides' words are in it once the editor closes.
    @Test func aPageThatHoldsAgainAfterTheRestartKeepsItsDocumentAsTheWriterHasIt() throws {
        let (f, project, _, document, restarted) = try Self.heldThenRestarted()
        let coordinator = SyncCoordinator(interval: 0)
        let token = coordinator.editorOpened(document)
        _ = try SyncInitiator(vault: restarted, transport: try f.transport(), coordinator: coordinator).run()
        let both = ["one, from the desk", "two", "three, from the writer"]
        #expect(try F.texts(f.desk, project.id, document) == both)
        #expect(try F.texts(f.laptop, project.id, document) == ["one", "two", "three, from the writer"], "the document moved under the open editor")
        coordinator.editorClosed(token)
        #expect(try F.texts(f.laptop, project.id, document) == both)
        _ = try SyncInitiator(vault: restarted, transport: try f.transport(), coordinator: coordinator).run()
        #expect(try F.texts(f.desk, project.id, document) == both)
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

    // MARK: A removal under an open editor (review 20, F20-13)

    /// Whether `node` is in the binder of `project` on `vault`.
    static func keeps(_ vault: TestVault, _ project: WritingProject, _ node: NodeID) throws -> Bool {
        try F.store(vault, project) { try $0.nodes(in: project.id).contains { $0.id == node } }
    }

    /// A folder holding one document, made on the laptop and synced to the desk.
    static func inFolder(_ f: F, _ project: WritingProject) throws -> (folder: NodeID, document: NodeID) {
        let made = try F.store(f.laptop, project) { store in
            let folder = try store.addNode(.chapter, titled: "Drafts", in: project.id)
            let document = try store.addNode(.scene, titled: "Draft", in: project.id, under: folder.id)
            try store.replaceDocumentContent(of: document.id, in: project.id,
                                             with: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "drafted")]))
            return (folder.id, document.id)
        }
        try f.syncLaptop()
        return made
    }

    /// The desk removes the folder and its document while an editor is open on it on the laptop,
    /// and the laptop syncs; the project's other document is untouched.
    static func removedUnderAnOpenEditor() throws
        -> (F, WritingProject, NodeID, folder: NodeID, document: NodeID, SyncCoordinator, Int) {
        let (f, project, deskProject, other) = try Self.synced()
        let (folder, document) = try Self.inFolder(f, project)
        let coordinator = SyncCoordinator(interval: 0)
        let token = coordinator.editorOpened(document)
        try F.store(f.desk, deskProject) { store in
            try store.removeNode(document, in: project.id)
            try store.removeNode(folder, in: project.id)
        }
        try Self.sync(f, coordinator)
        return (f, project, other, folder, document, coordinator, token)
    }

    /// Before, the removal deleted the document under the open editor at once: the writer's next
    /// save found no document (the console's 404) and the words typed were in no document or branch.
    @Test func aRemovalArrivingUnderAnOpenEditorWaitsAndTheWritersNewWordsKeepTheDocumentOnBothDevices() throws {
        let (f, project, _, folder, document, coordinator, token) = try Self.removedUnderAnOpenEditor()
        #expect(try Self.keeps(f.laptop, project, document), "the document was removed under the open editor")
        #expect(try F.texts(f.laptop, project.id, document) == ["drafted"])
        #expect(HeldDocuments.shared.isHolding(document))
        // The writer's save while held: words the removal had not seen.
        try F.edit(f.laptop, project, document, block: 0, to: "drafted, and more")
        try Self.sync(f, coordinator)
        coordinator.editorClosed(token)
        #expect(!HeldDocuments.shared.isHolding(document))
        try Self.sync(f, coordinator)
        for vault in [f.laptop, f.desk] {
            #expect(try Self.keeps(vault, project, document) && Self.keeps(vault, project, folder), "the writer's words left a device")
            #expect(try F.texts(vault, project.id, document) == ["drafted, and more"])
        }
    }

    @Test func aRemovalHeldForAnEditorInWhichNothingWasTypedAppliesWhenItClosesOnBothDevices() throws {
        let (f, project, other, folder, document, coordinator, token) = try Self.removedUnderAnOpenEditor()
        #expect(try Self.keeps(f.laptop, project, document) && Self.keeps(f.laptop, project, folder), "removed under the open editor")
        try Self.sync(f, coordinator)   // a commit while held does not make the document again
        #expect(try !Self.keeps(f.desk, project, document) && !Self.keeps(f.desk, project, folder), "the removal was undone while held")
        coordinator.editorClosed(token)
        try Self.sync(f, coordinator)
        for vault in [f.laptop, f.desk] {
            #expect(try !Self.keeps(vault, project, document) && !Self.keeps(vault, project, folder), "the removal did not apply on close")
            #expect(try F.texts(vault, project.id, other) == ["one", "two", "three"])
        }
    }

    /// A move is no removal: the document keeps its id (the open page saves into it as before) and
    /// goes where the desk put it; the writer's words and its place meet on both devices.
    @Test func aMoveArrivingUnderAnOpenEditorLeavesTheWritersSavesGoingAndBothDevicesAgree() throws {
        let (f, project, deskProject, document) = try Self.synced()
        let coordinator = SyncCoordinator(interval: 0)
        let token = coordinator.editorOpened(document)
        let folder = try F.store(f.desk, deskProject) { store in
            let folder = try store.addNode(.chapter, titled: "Moved", in: project.id)
            try store.moveNode(document, in: project.id, under: folder.id)
            return folder.id
        }
        try Self.sync(f, coordinator)
        try F.edit(f.laptop, project, document, block: 1, to: "two, from the writer")
        try Self.sync(f, coordinator)
        coordinator.editorClosed(token)
        try Self.sync(f, coordinator)
        for vault in [f.laptop, f.desk] {
            let parent = try F.store(vault, project) { try $0.nodes(in: project.id).first { $0.id == document }?.parent }
            #expect(parent == folder, "the move did not apply")
            #expect(try F.texts(vault, project.id, document) == ["one", "two, from the writer", "three"])
        }
    }
}
