import Dispatch
import Foundation

/// Runs `first` and `second` at the same time (on two cores when the machine has them) and returns
/// both outcomes once both have finished. The verifier checks signatures beside the entries with it;
/// the replication keeper writes each chunk beside hashing it.
package func bothAtOnce<First: Sendable, Second: Sendable>(_ first: @Sendable () throws -> First,
                                                  _ second: @Sendable () throws -> Second) -> (Result<First, Error>, Result<Second, Error>) {
    let outcomes = Outcomes<First, Second>()
    DispatchQueue.concurrentPerform(iterations: 2) { part in
        if part == 0 { outcomes.set(first: Result { try first() }) } else { outcomes.set(second: Result { try second() }) }
    }
    return outcomes.both
}

/// Where the two parts leave their outcomes; each is written once, and read after both have ended.
private final class Outcomes<First: Sendable, Second: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var first: Result<First, Error>?
    private var second: Result<Second, Error>?

    func set(first outcome: Result<First, Error>) { lock.withLock { first = outcome } }
    func set(second outcome: Result<Second, Error>) { lock.withLock { second = outcome } }

    var both: (Result<First, Error>, Result<Second, Error>) {
        lock.withLock { (first!, second!) }
    }
}
