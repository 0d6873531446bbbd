import CryptoVault
import Foundation
import Synchronization
import Testing
import Sync
import Writing

/// Live updates held while a full-screen editor is open (SECURITY.md §19.9): changes to the document
/// it is on are left out of notifications until the last editor on it closes, then delivered,
/// coalesced and rate-capped like any change; other documents' changes go as ever.
@Suite(.serialized) struct SyncCoordinatorHoldTests {
    final class Heard: Sendable {
        let notifications = Mutex<[SyncNotification]>([])
        var documents: Set<NodeID> { notifications.withLock { $0.reduce(Set()) { $0.union($1.documents) } } }
        var count: Int { notifications.withLock { $0.count } }
    }

    static func settle() { Thread.sleep(forTimeInterval: 0.3) }

    @Test func anOpenEditorsDocumentIsHeldUntilItClosesAndTheRestGoesAsEver() throws {
        let coordinator = SyncCoordinator(interval: 0.05)
        let heard = Heard()
        _ = coordinator.subscribe { notification in heard.notifications.withLock { $0.append(notification) } }
        let project = try ProjectID.random()
        let (editing, other) = (try NodeID.random(), try NodeID.random())
        let token = coordinator.editorOpened(editing)
        for _ in 0..<50 { coordinator.changed(project, documents: [editing]) }
        Self.settle()
        #expect(heard.count == 0, "nothing reaches the open editor's page")
        #expect(coordinator.heldDocuments == [editing])
        coordinator.changed(project, documents: [editing, other])
        Self.settle()
        #expect(heard.documents == [other])
        coordinator.editorClosed(token)
        Self.settle()
        #expect(heard.documents == [editing, other])
        let last = try #require(heard.notifications.withLock { $0.last })
        #expect(last.documents == [editing] && last.projects == [project] && last.documentsWritten == 51)
        #expect(coordinator.heldDocuments.isEmpty)
        // Closed, its changes go at once again; closing twice does nothing.
        coordinator.editorClosed(token)
        coordinator.changed(project, documents: [editing])
        Self.settle()
        #expect(heard.count == 3)
    }

    @Test func twoEditorsOnOneDocumentHoldItUntilBothClose() throws {
        let coordinator = SyncCoordinator(interval: 0.05)
        let heard = Heard()
        _ = coordinator.subscribe { notification in heard.notifications.withLock { $0.append(notification) } }
        let (project, document) = (try ProjectID.random(), try NodeID.random())
        let first = coordinator.editorOpened(document), second = coordinator.editorOpened(document)
        coordinator.changed(project, documents: [document])
        coordinator.editorClosed(first)
        Self.settle()
        #expect(heard.count == 0)
        coordinator.editorClosed(second)
        Self.settle()
        #expect(heard.documents == [document])
    }

    @Test func heldChangesAreStillRateCapped() throws {
        let coordinator = SyncCoordinator(interval: 0.4)
        let heard = Heard()
        _ = coordinator.subscribe { notification in heard.notifications.withLock { $0.append(notification) } }
        let project = try ProjectID.random()
        let documents = try (0..<20).map { _ in try NodeID.random() }
        let tokens = documents.map { coordinator.editorOpened($0) }
        for document in documents { coordinator.changed(project, documents: [document]) }
        for token in tokens { coordinator.editorClosed(token) }
        Thread.sleep(forTimeInterval: 0.6)
        #expect((1...2).contains(heard.count), "\(heard.count)")
        #expect(heard.documents == Set(documents))
    }

    @Test func aLeasedEditorNotRenewedClosesByItselfAndWhatItHeldIsDeliveredWhileARenewedOneHolds() throws {
        let coordinator = SyncCoordinator(interval: 0.05)
        let heard = Heard()
        _ = coordinator.subscribe { notification in heard.notifications.withLock { $0.append(notification) } }
        let (project, vanished, kept) = (try ProjectID.random(), try NodeID.random(), try NodeID.random())
        let gone = coordinator.editorOpened(vanished, leaseSeconds: 1.0)
        let renewed = coordinator.editorOpened(kept, leaseSeconds: 1.0)
        #expect(coordinator.openDocuments == [vanished, kept])
        coordinator.changed(project, documents: [vanished, kept])
        Self.settle()
        #expect(heard.count == 0, "both held while their leases run")
        // The page of `kept` renews its lease; the page of `vanished` went away without a word.
        for _ in 0..<12 {
            Thread.sleep(forTimeInterval: 0.2)
            #expect(coordinator.renewEditor(renewed))
        }
        Self.settle()
        #expect(heard.documents == [vanished], "the lapsed lease released its document, the renewed one still holds")
        #expect(coordinator.openDocuments == [kept] && coordinator.heldDocuments == [kept])
        #expect(!coordinator.renewEditor(gone), "a lapsed editor is not renewed: its page opens it again")
        coordinator.editorClosed(renewed)
        Self.settle()
        #expect(heard.documents == [vanished, kept] && coordinator.openDocuments.isEmpty)
    }
}
