import CryptoVault
import Foundation
import Synchronization
import Testing
import Sync
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

    /// A monotonic clock and a timer that run only when `advance` moves time.
    final class ManualTime: Sendable {
        private struct Due {
            let at: Double
            let order: Int
            let action: @Sendable () -> Void
        }

        private struct State {
            var now = 1_000.0
            var due: [Due] = []
            var scheduled = 0
        }

        private let state = Mutex(State())

        var clock: VaultClock { .forwardOnly { [self] in state.withLock { $0.now } } }

        var timer: SyncCoordinator.Timer {
            { [self] seconds, action in
                state.withLock { state in
                    state.scheduled += 1
                    state.due.append(Due(at: state.now + max(0, seconds), order: state.scheduled, action: action))
                }
            }
        }

        /// Timers set and not yet run.
        var pending: Int { state.withLock { $0.due.count } }

        /// Moves time forward by `seconds`, running each timer due by then at its time, earliest
        /// (then first set) first, outside the lock (a timer may set another). Bounded.
        func advance(by seconds: Double) {
            let end = state.withLock { $0.now + seconds }
            for _ in 0..<10_000 {
                let next = state.withLock { state -> Due? in
                    guard let index = state.due.indices.filter({ state.due[$0].at <= end })
                        .min(by: { (state.due[$0].at, state.due[$0].order) < (state.due[$1].at, state.due[$1].order) }) else {
                        state.now = end
                        return nil
                    }
                    let due = state.due.remove(at: index)
                    state.now = max(state.now, due.at)
                    return due
                }
                guard let next else { return }
                next.action()
            }
            Issue.record("timers kept setting timers")
        }
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
        time.advance(by: 1)
        #expect(heard.count == 0, "nothing reaches the open editor's page")
        #expect(coordinator.heldDocuments == [editing])
        coordinator.changed(project, documents: [editing, other])
        time.advance(by: 1)
        #expect(heard.documents == [other] && heard.count == 1)
        coordinator.editorClosed(token)
        time.advance(by: 1)
        #expect(heard.documents == [editing, other])
        let last = try #require(heard.notifications.withLock { $0.last })
        #expect(last.documents == [editing] && last.projects == [project] && last.documentsWritten == 51)
        #expect(coordinator.heldDocuments.isEmpty)
        // Closed, its changes go at once again; closing twice does nothing.
        coordinator.editorClosed(token)
        coordinator.changed(project, documents: [editing])
        time.advance(by: 1)
        #expect(heard.count == 3)
    }

    @Test func twoEditorsOnOneDocumentHoldItUntilBothClose() throws {
        let time = ManualTime(), heard = Heard()
        let coordinator = Self.coordinator(interval: 0.05, time, heard)
        let (project, document) = (try ProjectID.random(), try NodeID.random())
        let first = coordinator.editorOpened(document), second = coordinator.editorOpened(document)
        coordinator.changed(project, documents: [document])
        coordinator.editorClosed(first)
        time.advance(by: 1)
        #expect(heard.count == 0)
        coordinator.editorClosed(second)
        time.advance(by: 1)
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
        time.advance(by: 0)
        #expect(heard.count == 1 && heard.documents == Set(documents.prefix(10)), "\(heard.count)")
        // The other half close right after: coalesced into the one flush the interval allows.
        for token in tokens.suffix(10) { coordinator.editorClosed(token) }
        time.advance(by: 0.39)
        #expect(heard.count == 1, "not before the interval")
        time.advance(by: 0.02)
        #expect(heard.count == 2 && heard.documents == Set(documents), "\(heard.count)")
        time.advance(by: 10)
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
        time.advance(by: 0.9)
        #expect(heard.count == 0, "both held while their leases run")
        #expect(coordinator.renewEditor(renewed) && coordinator.renewEditor(gone), "both still open just before the lease ends")
        // From here the page of `kept` renews its lease; the page of `vanished` went away without a word.
        time.advance(by: 0.9)
        #expect(heard.count == 0, "renewed at 0.9 s, both leases run to 1.9 s")
        for _ in 0..<12 {
            #expect(coordinator.renewEditor(renewed))
            time.advance(by: 0.2)
        }
        #expect(heard.documents == [vanished] && heard.count == 1, "the lapsed lease released its document, the renewed one still holds")
        #expect(coordinator.openDocuments == [kept] && coordinator.heldDocuments == [kept])
        #expect(!coordinator.renewEditor(gone), "a lapsed editor is not renewed: its page opens it again")
        coordinator.editorClosed(renewed)
        time.advance(by: 1)
        #expect(heard.documents == [vanished, kept] && coordinator.openDocuments.isEmpty)
        // The renewed lease's timers, still set, find no lease to end.
        time.advance(by: 5)
        #expect(heard.count == 2)
    }
}
