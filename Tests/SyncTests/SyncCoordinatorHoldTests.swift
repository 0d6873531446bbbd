import CryptoVault
import Foundation
import Synchronization
import Testing
import Sync
import TestSupport
import Writing

/// Live updates held while a full-screen editor is open (SECURITY.md §19.9): changes to the document
/// it is on are left out of notifications until the last editor on it closes, then delivered,
/// coalesced and rate-capped like any change; other documents' changes go as ever.
///
/// Time is the test's own (`ManualTime`: the coordinator's clock and timer), moved by hand: each
/// timer due by then runs, in order, on the test's thread, so what is heard depends on no sleep and
/// no load on the machine.
@Suite struct SyncCoordinatorHoldTests {
    final class Heard: Sendable {
        let notifications = Mutex<[SyncNotification]>([])
        var documents: Set<NodeID> { notifications.withLock { $0.reduce(Set()) { $0.union($1.documents) } } }
        var count: Int { notifications.withLock { $0.count } }
    }

    static func coordinator(interval: Double, _ time: ManualTime, _ heard: Heard) -> SyncCoordinator {
        let coordinator = SyncCoordinator(interval: interval, clock: time.clock, timer: time.timer)
        _ = coordinator.subscribe { notification in heard.notifications.withLock { $0.append(notification) } }
        return coordinator
    }

    @Test func anOpenEditorsDocumentIsHeldUntilItClosesAndTheRestGoesAsEver() throws {
        let time = ManualTime(), heard = Heard()
        let coordinator = Self.coordinator(interval: 0.05, time, heard)
        let project = try ProjectID.random()
        let (editing, other) = (try NodeID.random(), try NodeID.random())
        let token = coordinator.editorOpened(editing)
        for _ in 0..<50 { coordinator.changed(project, documents: [editing]) }
        #expect(time.pending == 0, "nothing to deliver: no flush is even set")
        try time.advance(by: 1)
        #expect(heard.count == 0, "nothing reaches the open editor's page")
        #expect(coordinator.heldDocuments == [editing])
        coordinator.changed(project, documents: [editing, other])
        try time.advance(by: 1)
        #expect(heard.documents == [other] && heard.count == 1)
        coordinator.editorClosed(token)
        try time.advance(by: 1)
        #expect(heard.documents == [editing, other])
        let last = try #require(heard.notifications.withLock { $0.last })
        #expect(last.documents == [editing] && last.projects == [project] && last.documentsWritten == 51)
        #expect(coordinator.heldDocuments.isEmpty)
        // Closed, its changes go at once again; closing twice does nothing.
        coordinator.editorClosed(token)
        coordinator.changed(project, documents: [editing])
        try time.advance(by: 1)
        #expect(heard.count == 3)
    }

    @Test func twoEditorsOnOneDocumentHoldItUntilBothClose() throws {
        let time = ManualTime(), heard = Heard()
        let coordinator = Self.coordinator(interval: 0.05, time, heard)
        let (project, document) = (try ProjectID.random(), try NodeID.random())
        let first = coordinator.editorOpened(document), second = coordinator.editorOpened(document)
        coordinator.changed(project, documents: [document])
        coordinator.editorClosed(first)
        try time.advance(by: 1)
        #expect(heard.count == 0)
        coordinator.editorClosed(second)
        try time.advance(by: 1)
        #expect(heard.documents == [document] && heard.count == 1)
    }

    @Test func heldChangesAreStillRateCapped() throws {
        let time = ManualTime(), heard = Heard()
        let coordinator = Self.coordinator(interval: 0.4, time, heard)
        let project = try ProjectID.random()
        let documents = try (0..<20).map { _ in try NodeID.random() }
        let tokens = documents.map { coordinator.editorOpened($0) }
        for document in documents { coordinator.changed(project, documents: [document]) }
        // Half close: one notification for them, at once (nothing was flushed for an interval).
        for token in tokens.prefix(10) { coordinator.editorClosed(token) }
        try time.advance(by: 0)
        #expect(heard.count == 1 && heard.documents == Set(documents.prefix(10)), "\(heard.count)")
        // The other half close right after: coalesced into the one flush the interval allows.
        for token in tokens.suffix(10) { coordinator.editorClosed(token) }
        try time.advance(by: 0.39)
        #expect(heard.count == 1, "not before the interval")
        try time.advance(by: 0.02)
        #expect(heard.count == 2 && heard.documents == Set(documents), "\(heard.count)")
        try time.advance(by: 10)
        #expect(heard.count == 2, "nothing more")
    }

    @Test func aLeasedEditorNotRenewedClosesByItselfAndWhatItHeldIsDeliveredWhileARenewedOneHolds() throws {
        let time = ManualTime(), heard = Heard()
        let coordinator = Self.coordinator(interval: 0.05, time, heard)
        let (project, vanished, kept) = (try ProjectID.random(), try NodeID.random(), try NodeID.random())
        let gone = coordinator.editorOpened(vanished, leaseSeconds: 1.0)
        let renewed = coordinator.editorOpened(kept, leaseSeconds: 1.0)
        #expect(coordinator.openDocuments == [vanished, kept])
        coordinator.changed(project, documents: [vanished, kept])
        try time.advance(by: 0.9)
        #expect(heard.count == 0, "both held while their leases run")
        #expect(coordinator.renewEditor(renewed) && coordinator.renewEditor(gone), "both still open just before the lease ends")
        // From here the page of `kept` renews its lease; the page of `vanished` went away without a word.
        try time.advance(by: 0.9)
        #expect(heard.count == 0, "renewed at 0.9 s, both leases run to 1.9 s")
        for _ in 0..<12 {
            #expect(coordinator.renewEditor(renewed))
            try time.advance(by: 0.2)
        }
        #expect(heard.documents == [vanished] && heard.count == 1, "the lapsed lease released its document, the renewed one still holds")
        #expect(coordinator.openDocuments == [kept] && coordinator.heldDocuments == [kept])
        #expect(!coordinator.renewEditor(gone), "a lapsed editor is not renewed: its page opens it again")
        coordinator.editorClosed(renewed)
        try time.advance(by: 1)
        #expect(heard.documents == [vanished, kept] && coordinator.openDocuments.isEmpty)
        // The renewed lease's timers, still set, find no lease to end.
        try time.advance(by: 5)
        #expect(heard.count == 2)
    }
}
