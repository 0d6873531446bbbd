import CryptoVault
import Synchronization

/// The connections a `ChannelServer` holds, and its two bounds (SECURITY.md §9.9).
///
/// Unauthenticated connections (mid-handshake) are bounded, and when the bound is reached a new
/// connection evicts the oldest one rather than being turned away: a flood of silent connections
/// then cannot keep a paired device out, because its own handshake takes milliseconds while each
/// idle one waits for the handshake timeout. Authenticated connections have their own bound; past
/// it a paired device is told the server is busy. Within it, no device holds more than its share
/// (review 17 s8, F5: once someone else's device is paired, one device must not be able to take
/// every slot): a device holds at most `maximumPerDevice` connections, a new one evicting its own
/// oldest (a device that lost its link reconnects at once), and devices that are not `priority`
/// (the daemon: not the owner's own) together hold at most `maximumAuthenticated - reservedForPriority`.
///
/// Eviction shuts a socket down from this thread while its owner may be reading it. That is safe
/// because the owner removes its entry (under the same lock) before it closes the descriptor, so a
/// descriptor is never shut down after its number could have been reused.
final class ChannelConnectionRegistry: Sendable {
    struct Admission {
        let id: UInt64
        /// Whether an older unauthenticated connection was evicted to make room.
        let evictedAnother: Bool
    }

    /// An authenticated connection: whose, and whether that device may use the reserved slots.
    private struct Held {
        let handle: SocketShutdown
        let device: DeviceID
        let priority: Bool
    }

    private struct State {
        var nextID: UInt64 = 0
        /// Oldest first.
        var unauthenticated: [(id: UInt64, handle: SocketShutdown)] = []
        /// Ids grow, so a device's smallest id is its oldest connection.
        var authenticated: [UInt64: Held] = [:]
        var stopped = false
    }

    let maximumUnauthenticated: Int
    let maximumAuthenticated: Int
    let maximumPerDevice: Int
    let reservedForPriority: Int
    private let state = Mutex(State())

    init(maximumUnauthenticated: Int, maximumAuthenticated: Int, maximumPerDevice: Int = .max, reservedForPriority: Int = 0) {
        self.maximumUnauthenticated = maximumUnauthenticated
        self.maximumAuthenticated = maximumAuthenticated
        self.maximumPerDevice = maximumPerDevice
        self.reservedForPriority = reservedForPriority
    }

    /// Registers a connection that has not authenticated; nil once the server is stopping.
    func admitUnauthenticated(_ handle: SocketShutdown) -> Admission? {
        state.withLock { state in
            guard !state.stopped else { return nil }
            var evicted = false
            if state.unauthenticated.count >= maximumUnauthenticated {
                state.unauthenticated.removeFirst().handle.shutdown()
                evicted = true
            }
            state.nextID += 1
            state.unauthenticated.append((state.nextID, handle))
            return Admission(id: state.nextID, evictedAnother: evicted)
        }
    }

    /// Moves a connection that authenticated as `device` to the other bound; false if that bound (or
    /// the share of devices that are not `priority`) is full, the connection was evicted meanwhile,
    /// or the server is stopping. A device at its own bound has its oldest connection shut down.
    func promote(_ id: UInt64, device: DeviceID, priority: Bool) -> Bool {
        state.withLock { state in
            guard !state.stopped, let index = state.unauthenticated.firstIndex(where: { $0.id == id }) else { return false }
            let own = state.authenticated.filter { $0.value.device == device }.keys.sorted()
            if own.count >= maximumPerDevice, let oldest = own.first {
                state.authenticated.removeValue(forKey: oldest)?.handle.shutdown()
            } else {
                guard state.authenticated.count < maximumAuthenticated else { return false }
                let others = state.authenticated.values.filter { !$0.priority }.count
                guard priority || others < maximumAuthenticated - reservedForPriority else { return false }
            }
            state.authenticated[id] = Held(handle: state.unauthenticated.remove(at: index).handle, device: device, priority: priority)
            return true
        }
    }

    /// Forgets a connection; its owner calls this before closing the descriptor.
    func remove(_ id: UInt64) {
        state.withLock { state in
            state.unauthenticated.removeAll { $0.id == id }
            state.authenticated[id] = nil
        }
    }

    /// Refuses new connections and shuts down every one held.
    func stopAll() {
        state.withLock { state in
            state.stopped = true
            state.unauthenticated.forEach { $0.handle.shutdown() }
            state.authenticated.values.forEach { $0.handle.shutdown() }
        }
    }

    var counts: (unauthenticated: Int, authenticated: Int) {
        state.withLock { ($0.unauthenticated.count, $0.authenticated.count) }
    }
}
