import CryptoVault
import Synchronization

/// A monotonic clock and a timer that run only when `advance` moves time: a test passes both to
/// what it checks (`SyncCoordinator(clock:timer:)`), and each timer due by then runs, in order, on
/// the test's thread, so what the test sees depends on no sleep and no load on the machine.
public final class ManualTime: Sendable {
    /// `advance` ran more timers than a test sets: some timer keeps setting another at once.
    public struct Runaway: Error {}

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

    public init() {}

    public var clock: VaultClock { .forwardOnly { [self] in state.withLock { $0.now } } }

    /// Runs `action` once `advance` has moved time `seconds` past now (the shape of `SyncCoordinator.Timer`).
    public var timer: @Sendable (_ seconds: Double, _ action: @escaping @Sendable () -> Void) -> Void {
        { [self] seconds, action in
            state.withLock { state in
                state.scheduled += 1
                state.due.append(Due(at: state.now + max(0, seconds), order: state.scheduled, action: action))
            }
        }
    }

    /// Timers set and not yet run.
    public var pending: Int { state.withLock { $0.due.count } }

    /// Moves time forward by `seconds`, running each timer due by then at its time, earliest
    /// (then first set) first, outside the lock (a timer may set another). Bounded.
    public func advance(by seconds: Double) throws {
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
        throw Runaway()
    }
}
