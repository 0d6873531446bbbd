/// A moment on a `VaultClock`'s monotonic reading: when a wait gives up (a socket's, a child
/// process's), a token expires, or a progress line may be drawn again. The one type for deadlines,
/// so no caller reads a system clock of its own (issue 12, ClockGuardTests), and a
/// test that passes a `VaultClock.forwardOnly` clock moves every deadline made on it.
///
/// Never stored or shown: the monotonic origin is arbitrary and differs between boots.
public struct MonotonicDeadline: Sendable, Comparable {
    /// The monotonic reading (seconds) at which the deadline passes.
    public let end: Double
    public let clock: VaultClock

    /// The deadline `seconds` from now on `clock` (a negative count is now).
    public static func after(_ seconds: Double, on clock: VaultClock = .system) -> MonotonicDeadline {
        MonotonicDeadline(end: clock.monotonic() + max(0, seconds), clock: clock)
    }

    /// The deadline `duration` from now on `clock`.
    public static func after(_ duration: Duration, on clock: VaultClock = .system) -> MonotonicDeadline {
        after(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18, on: clock)
    }

    /// Seconds left before it passes, 0 once it has.
    public var remaining: Double { max(0, end - clock.monotonic()) }

    /// Whether the clock has reached it.
    public var hasPassed: Bool { clock.monotonic() >= end }

    /// Milliseconds left, rounded up (so a wait never ends just before the deadline) and capped at
    /// `cap` (poll(2) takes an Int32); 0 once it has passed.
    public func remainingMilliseconds(cappedAt cap: Int32 = 60_000) -> Int32 {
        let left = end - clock.monotonic()
        guard left > 0 else { return 0 }
        return Int32(min((left * 1000).rounded(.up), Double(cap)))
    }

    /// The earlier of this deadline and one `seconds` from now (an idle bound inside a total one).
    public func capped(at seconds: Double) -> MonotonicDeadline {
        min(self, .after(seconds, on: clock))
    }

    /// Ordered by the reading at which they pass (deadlines made on one clock).
    public static func < (left: MonotonicDeadline, right: MonotonicDeadline) -> Bool { left.end < right.end }
    public static func == (left: MonotonicDeadline, right: MonotonicDeadline) -> Bool { left.end == right.end }
}

