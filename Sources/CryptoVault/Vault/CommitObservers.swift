import Synchronization

/// What one committed write transaction recorded, for code in this process that acts on changes as
/// they happen (the daemon's sync after a local save, SECURITY.md §19.9): its entries' actions and
/// the compartments they name. Never details, subjects or content: an observer learns that something
/// of a kind changed, and reads what it needs through a transaction of its own.
public struct CommittedChange: Sendable, Equatable {
    public let actions: [AuditAction]
    public let compartments: Set<CompartmentID>

    public init(actions: [AuditAction], compartments: Set<CompartmentID>) {
        self.actions = actions
        self.compartments = compartments
    }
}

/// The observers of a vault's committed transactions (`UnlockedVault.commits`). Each is called on
/// the committing thread once the commit is durable, never for a transaction that rolled back, and
/// never inside the transaction (the database is free again): it should only note the change and
/// return (hand the work to a thread of its own), since the writer waits for it.
public final class CommitObservers: Sendable {
    public typealias Observer = @Sendable (CommittedChange) -> Void

    private struct State {
        var observers: [Int: Observer] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Calls `observer` after each commit until `remove` with the id returned.
    public func add(_ observer: @escaping Observer) -> Int {
        state.withLock { state in
            state.next += 1
            state.observers[state.next] = observer
            return state.next
        }
    }

    public func remove(_ id: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    func notify(_ change: CommittedChange) {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer(change) }
    }

    var isEmpty: Bool { state.withLock { $0.observers.isEmpty } }
}
