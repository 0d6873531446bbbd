import CryptoVault
import Dispatch
import Synchronization
import Writing

/// What changed in this vault through sync, for the clients that show it (the console): the
/// projects whose records arrived, and how many documents they rewrote.
public struct SyncNotification: Sendable, Equatable {
    public let projects: Set<ProjectID>
    public let documentsWritten: Int
}

/// The daemon's sync coordinator (SECURITY.md §19.9): incoming changes are applied by the exchange
/// as they arrive (`SyncResponder`, `SyncInitiator`), which report them here; subscribers hear of
/// them coalesced (every project changed since the last notification, in one) and rate-capped (at
/// most one notification per `interval`), so that an import of a thousand records is one or two
/// notifications, not a thousand.
public final class SyncCoordinator: Sendable {
    /// The process's coordinator: the daemon's exchange reports to it, the console subscribes to it.
    public static let shared = SyncCoordinator()

    public typealias Subscriber = @Sendable (SyncNotification) -> Void

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var pending: Set<ProjectID> = []
        var documents = 0
        var flushScheduled = false
        var lastFlush: Double = -.infinity
    }

    public let interval: Double
    private let clock: VaultClock
    private let state = Mutex(State())

    public init(interval: Double = 0.25, clock: VaultClock = .system) {
        self.interval = interval
        self.clock = clock
    }

    /// Calls `subscriber` for each notification until `unsubscribe` with the id returned.
    public func subscribe(_ subscriber: @escaping Subscriber) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = subscriber
            return state.nextID
        }
    }

    public func unsubscribe(_ id: Int) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    }

    /// Reports that records of `project` were stored here.
    public func changed(_ project: ProjectID, documents: Int) {
        let delay: Double? = state.withLock { state in
            state.pending.insert(project)
            state.documents += documents
            guard !state.flushScheduled else { return nil }
            state.flushScheduled = true
            return max(0, state.lastFlush + interval - clock.monotonic())
        }
        guard let delay else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in flush() }
    }

    private func flush() {
        let (notification, subscribers): (SyncNotification, [Subscriber]) = state.withLock { state in
            defer {
                state.pending = []
                state.documents = 0
                state.flushScheduled = false
                state.lastFlush = clock.monotonic()
            }
            return (SyncNotification(projects: state.pending, documentsWritten: state.documents), Array(state.subscribers.values))
        }
        for subscriber in subscribers { subscriber(notification) }
    }
}
