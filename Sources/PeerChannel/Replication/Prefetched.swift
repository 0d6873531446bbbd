import Dispatch
import Synchronization

/// A value computed on another thread from the moment it is asked for, to be collected later: the
/// replicator hashes the next bundle file while the current one is on its way.
final class Prefetched<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }
    }

    /// Waits for the value (or rethrows what computing it threw).
    func value() throws -> Value {
        done.wait()
        defer { done.signal() }
        return try outcome.withLock { $0! }.get()
    }
}
