import CryptoVault
import Dispatch
import Synchronization
import Writing

/// What changed in this vault through sync, for the clients that show it (the console): the
/// projects whose records arrived, how many documents they rewrote, and which (when the exchange
/// said: a document whose notification was held for an open editor comes when it closes).
public struct SyncNotification: Sendable, Equatable {
    public let projects: Set<ProjectID>
    public let documentsWritten: Int
    public let documents: Set<NodeID>
}

/// The daemon's sync coordinator (SECURITY.md §19.9): incoming changes are applied by the exchange
/// as they arrive (`SyncResponder`, `SyncInitiator`), which report them here; subscribers hear of
/// them coalesced (every project changed since the last notification, in one) and rate-capped (at
/// most one notification per `interval`), so that an import of a thousand records is one or two
/// notifications, not a thousand.
///
/// While a client says a full-screen editor is open on a document (`editorOpened`), changes to that
/// document are held: the exchange stores and merges them but leaves the document as the writer has
/// it (`HeldDocuments`), and notifications leave it out (the rest of its project's changes still
/// go), so an import never tears down a writing session; when the last editor on it closes
/// (`editorClosed`), what was held is written into the document and delivered, coalesced and
/// rate-capped like any change. An editor opened with a lease (a client that may vanish without
/// saying so: a browser page) is closed by itself when the lease runs out unless renewed
/// (`renewEditor`), and is not renewed once `maximumHoldSeconds` have passed since it opened, so a
/// hold is always bounded (an editor opened without a lease is one its opener, in this process,
/// closes).
public final class SyncCoordinator: Sendable {
    /// The process's coordinator: the daemon's exchange reports to it, the console subscribes to it.
    public static let shared = SyncCoordinator()

    public typealias Subscriber = @Sendable (SyncNotification) -> Void

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var pending: Set<ProjectID> = []
        var documents = 0
        var pendingDocuments: Set<NodeID> = []
        var flushScheduled = false
        var lastFlush: Double = -.infinity
        /// Editors open, by token: the document each is on.
        var editors: [Int: NodeID] = [:]
        var nextEditor = 0
        /// When each leased editor closes by itself (the clock's monotonic seconds), unless renewed.
        var leases: [Int: (seconds: Double, ends: Double)] = [:]
        /// When each editor opened (the clock's monotonic seconds): none holds past `maximumHoldSeconds`.
        var opened: [Int: Double] = [:]
        /// Changes held for open editors: each document's project, and how many writes of it.
        var held: [NodeID: (project: ProjectID, writes: Int)] = [:]

        func isOpen(_ document: NodeID) -> Bool { editors.values.contains(document) }
    }

    /// Runs `action` once `seconds` have passed (on another thread). A test passes its own, with a
    /// clock of its own, and moves time by hand: nothing it checks then waits on the machine's timing.
    public typealias Timer = @Sendable (_ seconds: Double, _ action: @escaping @Sendable () -> Void) -> Void

    /// The system's timer: a global dispatch queue's `asyncAfter`.
    public static let dispatchTimer: Timer = { seconds, action in
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: action)
    }

    public let interval: Double
    /// A leased editor is not renewed past this (30 minutes unless told): it then closes when its
    /// lease runs out, and the writer's page opens it again (with what came meanwhile written).
    public let maximumHoldSeconds: Double
    private let clock: VaultClock
    private let timer: Timer
    private let state = Mutex(State())

    /// `clock`'s monotonic seconds and `timer` must agree (the system's both, or a test's both).
    public init(interval: Double = 0.25, maximumHoldSeconds: Double = 1800, clock: VaultClock = .system,
                timer: @escaping Timer = SyncCoordinator.dispatchTimer) {
        self.interval = interval
        self.maximumHoldSeconds = maximumHoldSeconds
        self.clock = clock
        self.timer = timer
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

    /// Reports that records of `project` were stored here, rewriting `documents` documents.
    public func changed(_ project: ProjectID, documents: Int) {
        let delay = state.withLock { state in
            state.pending.insert(project)
            state.documents += documents
            return schedule(&state)
        }
        flush(after: delay)
    }

    /// Reports that records of `project` were stored here, rewriting `documents`: those with an
    /// editor open are held until it closes.
    public func changed(_ project: ProjectID, documents: Set<NodeID>) {
        let delay = state.withLock { state -> Double? in
            let open = documents.filter(state.isOpen)
            for document in open { state.held[document] = (project, (state.held[document]?.writes ?? 0) + 1) }
            let shown = documents.subtracting(open)
            guard open.isEmpty || !shown.isEmpty else { return nil }
            state.pending.insert(project)
            state.documents += shown.count
            state.pendingDocuments.formUnion(shown)
            return schedule(&state)
        }
        flush(after: delay)
    }

    /// A client's full-screen editor is open on `document`: its changes are held until
    /// `editorClosed` with the token returned, or, with `leaseSeconds`, until that long passes
    /// without `renewEditor`.
    public func editorOpened(_ document: NodeID, leaseSeconds: Double? = nil) -> Int {
        let token = state.withLock { state in
            state.nextEditor += 1
            state.editors[state.nextEditor] = document
            state.opened[state.nextEditor] = clock.monotonic()
            if let leaseSeconds { state.leases[state.nextEditor] = (leaseSeconds, clock.monotonic() + leaseSeconds) }
            return state.nextEditor
        }
        if let leaseSeconds { expire(after: leaseSeconds) }
        return token
    }

    /// The leased editor `token` is still open: its lease starts again. False when it is not open
    /// (closed, or its lease ran out: the client opens it again).
    @discardableResult
    public func renewEditor(_ token: Int) -> Bool {
        let seconds = state.withLock { state -> Double? in
            guard state.editors[token] != nil, let lease = state.leases[token],
                  clock.monotonic() - (state.opened[token] ?? 0) < maximumHoldSeconds else { return nil }
            state.leases[token] = (lease.seconds, clock.monotonic() + lease.seconds)
            return lease.seconds
        }
        guard let seconds else { return false }
        expire(after: seconds)
        return true
    }

    /// The editor `token` closed: when it was the last on its document, what was held for it is
    /// delivered. An unknown token (closed already) does nothing.
    public func editorClosed(_ token: Int) {
        finish(state.withLock { state in close(token, &state) })
    }

    /// After an editor closed: what was held for its document is written (when it was the last
    /// editor on it), then the held notification goes.
    private func finish(_ closed: Closed) {
        if let document = closed.released { HeldDocuments.shared.release(document) }
        flush(after: closed.delay)
    }

    /// What closing an editor left to do: the document no editor is open on any more, and the
    /// delay of the flush that delivers its held notification.
    private struct Closed {
        var released: NodeID?
        var delay: Double?
    }

    /// The documents an editor is open on now (for the console's live feed).
    public var openDocuments: Set<NodeID> { state.withLock { Set($0.editors.values) } }

    private func close(_ token: Int, _ state: inout State) -> Closed {
        state.leases[token] = nil
        state.opened[token] = nil
        guard let document = state.editors.removeValue(forKey: token), !state.isOpen(document) else { return Closed() }
        guard let held = state.held.removeValue(forKey: document) else { return Closed(released: document) }
        state.pending.insert(held.project)
        state.documents += held.writes
        state.pendingDocuments.insert(document)
        return Closed(released: document, delay: schedule(&state))
    }

    /// After `seconds`, closes every leased editor whose lease has run out by then.
    private func expire(after seconds: Double) {
        // A hundredth later, so the lease has run out by the clock's reading when the timer fires.
        timer(seconds + 0.01) { [self] in
            let closed = state.withLock { state -> [Closed] in
                let now = clock.monotonic()
                return state.leases.filter { $0.value.ends <= now }.keys.sorted().map { close($0, &state) }
            }
            for each in closed { finish(each) }
        }
    }

    /// The documents whose changes are held for open editors (for tests and status).
    public var heldDocuments: Set<NodeID> { state.withLock { Set($0.held.keys) } }

    /// Schedules the next flush unless one is: the delay until it (nil: one is scheduled).
    private func schedule(_ state: inout State) -> Double? {
        guard !state.flushScheduled else { return nil }
        state.flushScheduled = true
        return max(0, state.lastFlush + interval - clock.monotonic())
    }

    private func flush(after delay: Double?) {
        guard let delay else { return }
        timer(delay) { [self] in flush() }
    }

    private func flush() {
        let (notification, subscribers): (SyncNotification, [Subscriber]) = state.withLock { state in
            defer {
                state.pending = []
                state.documents = 0
                state.pendingDocuments = []
                state.flushScheduled = false
                state.lastFlush = clock.monotonic()
            }
            return (SyncNotification(projects: state.pending, documentsWritten: state.documents, documents: state.pendingDocuments),
                    Array(state.subscribers.values))
        }
        for subscriber in subscribers { subscriber(notification) }
    }
}
