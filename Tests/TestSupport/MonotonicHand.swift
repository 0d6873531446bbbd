import CryptoVault
import Synchronization

/// A monotonic reading a test moves by hand: `clock` is a `VaultClock.forwardOnly` on it, so every
/// `MonotonicDeadline` made on that clock passes exactly when the test says.
public final class MonotonicHand: Sendable {
    private let reading = Mutex<Double>(1_000)

    public init() {}

    public var clock: VaultClock { VaultClock.forwardOnly { self.reading.withLock { $0 } } }

    public func advance(_ seconds: Double) { reading.withLock { $0 += max(0, seconds) } }
}
