import CryptoVault
import Foundation

/// When the daemon syncs with a device by itself (SECURITY.md §19.9, background sync): a device
/// seen (its announcement heard, or its connection) is synced with at once, unless a sync with it is
/// running, a retry is already set, or one succeeded within `quietSeconds` while the device stayed
/// in sight (so two daemons that each see the other do not sync back and forth for ever, nor every
/// minute while idle); a device back in sight after `absentSeconds` is synced at once. A failed sync is
/// retried after a delay that doubles with each failure in a row, from `firstRetrySeconds` to at
/// most `maximumRetrySeconds`, each jittered into its upper half so that devices do not retry in
/// step; a success forgets the failures; a pause (`paused`) sets the longest retry, which a resume
/// here (`resumed`) ends at once. A local save (`saved`) starts a sync at once unless one is
/// running (then that one goes again when it ends, once for all the saves it missed: `again`) or a
/// retry is set (the retry carries the save: saves never hurry a failing device past its backoff).
/// Pure state: the caller reads the
/// time (a `VaultClock`) and the jitter, so a test drives it by hand.
public struct SyncSchedule: Sendable {
    public struct Policy: Sendable, Equatable {
        public var firstRetrySeconds: Double
        public var maximumRetrySeconds: Double
        /// After a success, sightings of a device that stayed in sight start nothing for this long.
        public var quietSeconds: Double
        /// A device not seen for this long is back when seen again: it syncs at once, quiet or not.
        public var absentSeconds: Double

        public init(firstRetrySeconds: Double = 5, maximumRetrySeconds: Double = 900, quietSeconds: Double = 900,
                    absentSeconds: Double = 120) {
            self.firstRetrySeconds = firstRetrySeconds
            self.maximumRetrySeconds = maximumRetrySeconds
            self.quietSeconds = quietSeconds
            self.absentSeconds = absentSeconds
        }
    }

    struct Peer: Sendable {
        var failures = 0
        var retryAt: Double?
        var lastSuccess: Double?
        /// When it was last seen (announced or connected).
        var lastSeen: Double?
        var running = false
        /// A save came while a sync ran: it goes again when it ends.
        var savedSince = false
        /// The retry set is a pause's wait, not a failure's backoff: a resume here ends it.
        var waitsForPause = false
        /// That pause is this vault's own (`sync pause` here), whose end this vault can read.
        var pausedHere = false
    }

    public let policy: Policy
    private var peers: [DeviceID: Peer] = [:]

    public init(policy: Policy = Policy()) { self.policy = policy }

    /// `device` was seen at `now`: whether to start a sync with it now (it is then running). A device
    /// that stays in sight (announcing every 5 s) is synced again only after the quiet time: what
    /// either side saves meanwhile already goes at once (`saved`, on each side), so an idle pair of
    /// daemons would otherwise exchange nothing every minute, each exchange opening a privileged
    /// session per privileged project on both sides, recorded (review 17 s8, F9). A device back in
    /// sight after `absentSeconds` (woken, back on the network) is synced at once.
    public mutating func seen(_ device: DeviceID, at now: Double) -> Bool {
        var peer = peers[device] ?? Peer()
        defer { peers[device] = peer }
        let back = peer.lastSeen.map { now - $0 >= policy.absentSeconds } ?? true
        peer.lastSeen = now
        guard !peer.running, peer.retryAt == nil else { return false }
        if let last = peer.lastSuccess, now - last < policy.quietSeconds, !back { return false }
        peer.running = true
        return true
    }

    /// A local save at `now` (SECURITY.md §19.9, sync on save): whether to start a sync with
    /// `device` now (it is then running). The quiet time after a success does not apply: a save is
    /// news the device has not had.
    public mutating func saved(_ device: DeviceID, at now: Double) -> Bool {
        var peer = peers[device] ?? Peer()
        defer { peers[device] = peer }
        guard peer.retryAt == nil else { return false }
        guard !peer.running else {
            peer.savedSince = true
            return false
        }
        peer.running = true
        return true
    }

    /// After `finished`: whether a save came while the sync with `device` ran, so it goes again now
    /// (it is then running). After a failure it does not: the retry carries the save.
    public mutating func again(_ device: DeviceID) -> Bool {
        guard var peer = peers[device], peer.savedSince, !peer.running, peer.retryAt == nil else { return false }
        peer.savedSince = false
        peer.running = true
        peers[device] = peer
        return true
    }

    /// The devices whose retry is due at `now`, in id order (each is then running).
    public mutating func due(at now: Double) -> [DeviceID] {
        let due = peers.filter { !$0.value.running && ($0.value.retryAt.map { $0 <= now } ?? false) }.keys
            .sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        for device in due {
            peers[device]?.running = true
            peers[device]?.retryAt = nil
        }
        return due
    }

    /// A sync with `device` ended at `now`. A success forgets the failures; a failure sets the next
    /// try and returns its delay (`random`, in 0..<1, picks it in the upper half of the full delay).
    /// Only a `whole` sync's success (every project, not a save's projects alone) starts the quiet
    /// time: sightings after a save's sync still sync the rest (review 17 s10, N-s10-6).
    @discardableResult
    public mutating func finished(_ device: DeviceID, at now: Double, succeeded: Bool, random: Double, whole: Bool = true) -> Double? {
        var peer = peers[device] ?? Peer()
        defer { peers[device] = peer }
        peer.running = false
        (peer.waitsForPause, peer.pausedHere) = (false, false)
        guard !succeeded else {
            (peer.failures, peer.retryAt) = (0, nil)
            if whole { peer.lastSuccess = now }
            return nil
        }
        peer.failures += 1
        peer.savedSince = false
        let delay = Self.delay(afterFailures: peer.failures, policy: policy, random: random)
        peer.retryAt = now + delay
        return delay
    }

    /// Sync with `device` was refused `paused` (`here`: by this vault's own pause; else by the
    /// device's) at `now`: the next try is the
    /// longest retry away, so neither sightings (every 5 s with --announce) nor saves ask again
    /// before it, each ask being an audit entry on both sides (review 17, F16). Not a failure: the
    /// backoff is unchanged. Returns the delay.
    @discardableResult
    public mutating func paused(_ device: DeviceID, at now: Double, here: Bool = false) -> Double {
        var peer = peers[device] ?? Peer()
        defer { peers[device] = peer }
        (peer.running, peer.savedSince, peer.waitsForPause, peer.pausedHere) = (false, false, true, here)
        peer.retryAt = now + policy.maximumRetrySeconds
        return policy.maximumRetrySeconds
    }

    /// Sync was resumed here (`vaultctl sync resume`) at `now`: every device waiting out a pause is
    /// due at once, so what was edited meanwhile moves now, not up to 15 minutes later (review 17
    /// s9, N-s9-3). A device in a failure's backoff keeps it.
    public mutating func resumed(at now: Double) {
        for (device, peer) in peers where peer.waitsForPause && !peer.running { resumed(device, at: now) }
    }

    /// Whether `device` waits out a pause of this vault's own (`paused(here: true)`): the caller may
    /// read whether it still stands, since a `sync resume` run in another process is not seen here.
    public func waitsForPauseHere(_ device: DeviceID) -> Bool {
        peers[device].map { $0.waitsForPause && $0.pausedHere && !$0.running } ?? false
    }

    /// The pause `device` waited out ended (a resume here, or this vault's pause found lifted by a
    /// `sync resume` run in another process: review 17 s9, N-s9-3): it is due at `now`.
    public mutating func resumed(_ device: DeviceID, at now: Double) {
        guard peers[device]?.waitsForPause == true else { return }
        peers[device]?.retryAt = now
        peers[device]?.waitsForPause = false
        peers[device]?.pausedHere = false
    }

    /// `device` is no longer an own device: nothing is retried.
    public mutating func stopped(_ device: DeviceID) {
        peers[device]?.running = false
        peers[device]?.savedSince = false
        peers[device]?.retryAt = nil
    }

    /// Failures in a row with `device` so far.
    public func failures(of device: DeviceID) -> Int { peers[device]?.failures ?? 0 }

    /// When the next try with `device` is set, if one is.
    public func retry(of device: DeviceID) -> Double? { peers[device]?.retryAt }

    /// The delay after `failures` failures in a row: the first retry's, doubled for each failure
    /// after the first, at most the maximum; then jittered into its upper half.
    public static func delay(afterFailures failures: Int, policy: Policy, random: Double) -> Double {
        let full = min(policy.maximumRetrySeconds, policy.firstRetrySeconds * pow(2, Double(min(max(failures - 1, 0), 40))))
        return full * (0.5 + 0.5 * min(max(random, 0), 1))
    }
}
