import CryptoVault
import Synchronization

/// When the answering side checks the exchange's tables (`SyncExchangeHealth`; attack review s6,
/// P3): the check reads every row of seven tables, too much to run before each request of a peer
/// that may make ten thousand pull requests in one exchange. It runs at the start of each exchange
/// (its `sync.projects` request, the first an asking device makes), on a responder's first request,
/// and again for any request once the last verdict is `seconds` old; in between, the last verdict
/// stands. Damage between two checks is damage from outside (every writer of the tables keeps
/// their rows whole), met at the next check; the asking side checks before each run as before.
/// One per `SyncResponder` (the daemon's channel service keeps one for its life).
public final class SyncExchangeHealthWatch: Sendable {
    public static let defaultSeconds = 60.0

    public let seconds: Double
    let clock: VaultClock
    private let verdict = Mutex<(at: Double, damage: SyncExchangeDamage)?>(nil)
    private let scans = Atomic<Int>(0)

    public init(seconds: Double = defaultSeconds, clock: VaultClock = .system) {
        self.seconds = seconds
        self.clock = clock
    }

    /// How many times the tables were read (for tests: the cost the watch bounds).
    var checks: Int { scans.load(ordering: .relaxed) }

    /// Throws the exchange's refusal (`damagedSyncState`) when the tables are damaged as a whole, as
    /// last checked; else returns what of them is damaged, by project and device (the request's
    /// project, or its device, is refused then). Checks again when `kind` begins an exchange or the
    /// verdict is too old.
    @discardableResult
    func check(before kind: String, in vault: UnlockedVault) throws -> SyncExchangeDamage {
        let now = clock.monotonic()
        let damage: SyncExchangeDamage
        if let last = verdict.withLock({ $0 }), kind != SyncWire.projectsKind, now - last.at < seconds {
            damage = last.damage
        } else {
            scans.add(1, ordering: .relaxed)
            damage = try vault.transaction { tx in SyncExchangeHealth.damage(in: tx) }
            verdict.withLock { $0 = (now, damage) }
        }
        if let whole = damage.whole { throw SyncExchangeHealth.refusal(whole) }
        return damage
    }
}
