import Dispatch
import Foundation

/// The one clock of the code: every reading of the time goes through a `VaultClock`, and this file
/// is the only one that asks the system (a guard test, ClockGuardTests, fails on any other).
///
/// Three readings of one clock:
/// - `now()`: whole seconds since the Unix epoch, UTC, as the vault stores them (rows' `created_at`,
///   audit entries, checkpoints, audit key epochs, pairings, witness cosignatures);
/// - `precise()`: the same with its fraction, for what is finer than a second (a session's idle
///   time, a ping's milliseconds, a socket's deadline);
/// - `monotonic()`: seconds from an arbitrary origin on a clock that only moves forward, for
///   lifetimes that a change of the wall clock must not stretch or cut (a pairing code's 5 minutes);
///   never stored.
///
/// A value, so a test or a caller with its own time source passes another (`AuditLog(clock:)`,
/// `PairingCodeLease(code:clock:)`); `init(_:)`, `fractional(_:)` and `forwardOnly(_:)` each replace
/// the reading a test controls and leave the others on the system's clock.
public struct VaultClock: Sendable {
    public let now: @Sendable () -> Int64
    public let precise: @Sendable () -> Double
    public let monotonic: @Sendable () -> Double

    /// A wall clock that reads whole seconds (`now`); `precise` reads the same seconds.
    public init(_ now: @escaping @Sendable () -> Int64) {
        self.init(now: now, precise: { Double(now()) }, monotonic: Self.system.monotonic)
    }

    /// A wall clock that reads seconds with their fraction; `now` is its whole seconds.
    public static func fractional(_ precise: @escaping @Sendable () -> Double) -> VaultClock {
        VaultClock(now: { Int64(precise()) }, precise: precise, monotonic: system.monotonic)
    }

    /// A forward-only clock (lifetimes); the wall clock stays the system's.
    public static func forwardOnly(_ monotonic: @escaping @Sendable () -> Double) -> VaultClock {
        VaultClock(now: system.now, precise: system.precise, monotonic: monotonic)
    }

    private init(now: @escaping @Sendable () -> Int64, precise: @escaping @Sendable () -> Double,
                 monotonic: @escaping @Sendable () -> Double) {
        self.now = now
        self.precise = precise
        self.monotonic = monotonic
    }

    /// Milliseconds since the Unix epoch (0 before it).
    public func milliseconds() -> UInt64 { UInt64(max(0, precise() * 1000)) }

    /// The wall clock's reading as a `Date`.
    public func date() -> Date { Date(timeIntervalSince1970: precise()) }

    /// The system's clocks: the wall clock (`gettimeofday`, through Foundation) and the monotonic
    /// uptime clock (`DispatchTime`, which does not count a suspended machine's sleep either).
    public static let system = VaultClock(now: { Int64(Date().timeIntervalSince1970) }, precise: { Date().timeIntervalSince1970 },
                                          monotonic: { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 })
}
