import CryptoVault
import Synchronization

/// How many refusals of one paired device the answering side records in a time (SECURITY.md §19.9,
/// "Refusals are bounded"; review 17, F4). The audit log only grows, so a device that sends what is
/// refused, again and again, must not grow it without bound. Per device, a window of `seconds` on
/// the forward-only clock, from its first refusal: up to `bound` refusals are recorded one by one
/// (a refused push's records count one each); the one that passes the bound is recorded as one
/// summary (reason `tooManyRefusals`, with the bound), and until the window ends the device's
/// requests are refused unread (`tooManyRefusals`) and counted, not recorded. The first request of
/// the device after the window records how many went unrecorded. Kept in memory, one per
/// `SyncResponder` (the daemon's channel service keeps one for its life): a restart forgets the
/// window, and what it had not yet recorded as a count.
public final class SyncRefusalBudget: Sendable {
    public static let defaultBound = 64
    public static let defaultSeconds = 60.0

    struct Window {
        var start: Double
        var recorded = 0
        var unrecorded = 0
        var summarised = false
        /// Refusals of the windows before that went unrecorded and whose count is not recorded yet.
        var carried = 0
    }

    /// What the caller records for refusals it charged: each one (`record`), and the summary once
    /// the bound is passed (`summarise`).
    struct Charge: Equatable {
        var record: Bool
        var summarise: Bool
    }

    public let bound: Int
    public let seconds: Double
    let clock: VaultClock
    private let windows = Mutex<[DeviceID: Window]>([:])

    public init(bound: Int = defaultBound, seconds: Double = defaultSeconds, clock: VaultClock = .system) {
        self.bound = max(1, bound)
        self.seconds = seconds
        self.clock = clock
    }

    /// At the start of a request of `device`: whether it is past its bound in this window (then the
    /// request is refused unread), and how many of its refusals went unrecorded in windows that
    /// ended (to be recorded now, once).
    func open(_ device: DeviceID) -> (over: Bool, unrecorded: Int) {
        let now = clock.monotonic()
        return windows.withLock { all in
            guard var window = all[device].map({ roll($0, at: now) }) else { return (false, 0) }
            let carried = window.carried
            window.carried = 0
            all[device] = window
            return (window.summarised, carried)
        }
    }

    /// Charges `count` refusals of `device`. Those the caller recorded already (a push's refused
    /// records, each recorded as it was verified) count toward the bound; any other is to be
    /// recorded only while the window's bound holds.
    func charge(_ device: DeviceID, _ count: Int, recordedAlready: Bool = false) -> Charge {
        let now = clock.monotonic()
        return windows.withLock { all in
            var window = all[device].map { roll($0, at: now) } ?? Window(start: now)
            var record = false
            if recordedAlready {
                window.recorded += count
            } else if window.summarised || window.recorded + count > bound {
                window.unrecorded += count
            } else {
                window.recorded += count
                record = true
            }
            let summarise = !window.summarised && (window.recorded > bound || window.unrecorded > 0)
            if summarise { window.summarised = true }
            all[device] = window
            return Charge(record: record, summarise: summarise)
        }
    }

    /// How many refusals of `device` one receive may record one by one now: what the window's bound
    /// leaves (none once it is passed). Give back what it used with `spent(_:_:)`.
    public func allowance(for device: DeviceID) -> SyncRefusalAllowance {
        let now = clock.monotonic()
        return windows.withLock { all in
            guard let window = all[device].map({ roll($0, at: now) }) else { return SyncRefusalAllowance(bound) }
            all[device] = window
            return SyncRefusalAllowance(window.summarised ? 0 : max(0, bound - window.recorded))
        }
    }

    /// Charges what a receive's allowance recorded; refusals it only counted (and summarised in one
    /// entry of its own) pass the bound: the device's requests are refused unread until the window ends.
    public func spent(_ device: DeviceID, _ allowance: SyncRefusalAllowance) {
        let now = clock.monotonic()
        windows.withLock { all in
            var window = all[device].map { roll($0, at: now) } ?? Window(start: now)
            window.recorded += allowance.recorded
            if allowance.unrecorded > 0 { window.summarised = true }
            all[device] = window
        }
    }

    /// The budget of the asking side (`SyncInitiator`, the daemon's background sync and `sync now`),
    /// one per process, so a device answering with what is refused is bounded across runs too.
    public static let asking = SyncRefusalBudget()

    /// The window itself while it lasts; after it, a fresh one carrying what went unrecorded.
    private func roll(_ window: Window, at now: Double) -> Window {
        guard now - window.start >= seconds || now < window.start else { return window }
        return Window(start: now, carried: window.carried + window.unrecorded)
    }
}
