import CryptoVault
import Synchronization

/// The observers of records a paired device sent that a vault of this process stored (a receive
/// that kept something new: never one that stored nothing), told which device sent them and the
/// project's compartment, so the daemon's background sync can pass them on to the owner's other
/// devices at once (`BackgroundSync.received`; review 17 s9, the relay cost of F9's quiet time).
/// The vault's commit observers say what a transaction recorded, not which device it came from.
/// Each observer is called on the receiving thread after the receive committed: it should only
/// hand the work over.
public final class SyncReceiveObservers: Sendable {
    public typealias Observer = @Sendable (_ compartment: CompartmentID, _ sender: DeviceID) -> Void

    /// The process's: every exchange (asking or answering) reports to it.
    public static let shared = SyncReceiveObservers()

    private struct State {
        var observers: [Int: (vault: VaultID, observer: Observer)] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Calls `observer` for each receive into the vault `vault` until `remove` with the id returned.
    public func add(for vault: VaultID, _ observer: @escaping Observer) -> Int {
        state.withLock { state in
            state.next += 1
            state.observers[state.next] = (vault, observer)
            return state.next
        }
    }

    public func remove(_ id: Int) {
        state.withLock { _ = $0.observers.removeValue(forKey: id) }
    }

    /// Records `sender` sent were stored in `vault`, in the project of `compartment`.
    func stored(in vault: VaultID, compartment: CompartmentID, from sender: DeviceID) {
        let observers = state.withLock { $0.observers.values.filter { $0.vault == vault }.map(\.observer) }
        for observer in observers { observer(compartment, sender) }
    }
}
