import CryptoVault
import Foundation
import PeerChannel
import Synchronization
import Sync

/// The daemon's background sync (SECURITY.md §19.9): when a paired device it syncs with
/// (`SyncPartners`: the owner's own devices, and someone else's while a project is shared between
/// the two) is seen (its LAN announcement heard, or it connected to this daemon's channel), the
/// daemon runs the exchange with it (`SyncInitiator`, with a deadline) at the channel address it
/// last announced, or where a sync last reached it; a failure is retried with backoff
/// (`SyncSchedule`), a pause (`vaultctl sync pause`, here or on the device) waits the longest retry.
/// A local save (a transaction of this process that changed the writing model: a command the
/// daemon ran, the console's save; not what sync itself wrote) starts one at once with each own
/// device, and someone else's only when the save was in a project shared with it, whose address is known, coalesced: saves during a sync make one more sync after it, and
/// a device in backoff waits for its retry (review 17, F11). Records a device sent that were stored
/// here go on the same way to every such device but the sender (`received`). A save's (or a
/// relay's) sync syncs those projects alone (review 17 s10, N-s10-6: every project's step, each
/// privileged one's in a recorded session on both devices, ran for a save anywhere); a sighting's
/// and a retry's sync every project.
/// One sync at a time; each is recorded as any other (`sync.exchange`).
public final class BackgroundSync: Sendable {
    public struct Settings: Sendable {
        public var policy = SyncSchedule.Policy()
        /// Where to hear announcements (nil: only connections make a device seen).
        public var listen: SocketAddress? = Discovery.defaultAddress
        /// How often due retries are looked for.
        public var tickSeconds = 1.0
        /// Each run's deadline, and its channel's idle timeout.
        public var deadlineSeconds = 120.0

        public init() {}
    }

    /// What a background sync did, for the daemon's log and for tests.
    public enum Event: Sendable {
        case started(DeviceID, SocketAddress)
        case succeeded(DeviceID, SyncRunReport)
        /// The run with the device at this address (nil: none known) failed with this error code; the
        /// next try is in `retryIn` seconds (nil: none, no longer own).
        case failed(DeviceID, SocketAddress?, code: String, retryIn: Double?)
    }

    private struct State: Sendable {
        var schedule: SyncSchedule
        var addresses: [DeviceID: SocketAddress] = [:]
        /// The compartments saved while a sync with the device ran or waited: the next save's sync syncs them.
        var savedMeanwhile: [DeviceID: Set<CompartmentID>] = [:]
    }

    let vault: UnlockedVault
    let keys: DeviceKeys
    let settings: Settings
    let clock: VaultClock
    let random: @Sendable () -> Double
    let events: @Sendable (Event) -> Void
    private let state: Mutex<State>
    private let running = Atomic<Bool>(false)
    /// The vault's commit observer (`LocalSave`) and its receive observer while started.
    private let observers = Mutex<(commits: Int, receives: Int)?>(nil)
    private let working = DispatchSemaphore(value: 1)
    private let stopped = DispatchSemaphore(value: 0)

    public init(vault: UnlockedVault, keys: DeviceKeys, settings: Settings = Settings(), clock: VaultClock = .system,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, events: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.vault = vault
        self.keys = keys
        self.settings = settings
        self.clock = clock
        self.random = random
        self.events = events
        state = Mutex(State(schedule: SyncSchedule(policy: settings.policy)))
    }

    /// Starts looking for due retries, and listening for announcements when `settings.listen` says where.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Thread.detachNewThread { [self] in
            while running.load(ordering: .acquiring) {
                for device in state.withLock({ $0.schedule.due(at: clock.monotonic()) }) { launch(device) }
                Thread.sleep(forTimeInterval: settings.tickSeconds)
            }
            stopped.signal()
        }
        if let listen = settings.listen { Thread.detachNewThread { [self] in hear(on: listen) } }
        let commits = vault.commits.add { [weak self] change in
            // On the committing thread: only hand the work over (the writer waits for this).
            guard let background = self else { return }
            if change.actions.contains(.syncResume) { background.resumed() }
            guard LocalSave.isLocalSave(change) else { return }
            let saved = change.compartments
            DispatchQueue.global().async { background.saved(saved) }
        }
        let receives = SyncReceiveObservers.shared.add(for: vault.vault.vaultID) { [weak self] compartment, sender in
            guard let background = self else { return }
            DispatchQueue.global().async { background.received([compartment], from: sender) }
        }
        observers.withLock { $0 = (commits, receives) }
    }

    /// Stops the loops; a sync running goes on to its end (its deadline bounds it).
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let ids = observers.withLock { kept in
            defer { kept = nil }
            return kept
        }
        if let ids {
            vault.commits.remove(ids.commits)
            SyncReceiveObservers.shared.remove(ids.receives)
        }
        stopped.wait()
    }

    /// `device` was seen: at `address` (its announced channel), or connected (nil: the address it
    /// announced last). Starts a sync with it if this vault syncs with it and the schedule says so.
    public func seen(_ device: DeviceID, at address: SocketAddress?) {
        guard running.load(ordering: .acquiring), (try? SyncPartners.isPartner(device, in: vault)) == true else { return }
        noticeResume(of: device)
        let start = state.withLock { state in
            if let address { state.addresses[device] = address }
            return self.address(of: device, in: state) != nil && state.schedule.seen(device, at: clock.monotonic())
        }
        if start { launch(device) }
    }

    /// The writing model was saved here, in `compartments`: a sync starts with each device the save
    /// concerns (`SyncPartners.forSave`: own devices, and someone else's only for a project shared
    /// with it) whose address is known, unless the schedule says to wait (one running goes again when
    /// it ends; a failing one waits for its retry).
    public func saved(_ compartments: Set<CompartmentID>) {
        startSyncs(afterChangesIn: compartments, except: nil)
    }

    /// Records `sender` sent were stored here, in `compartments`: they go on as a save there would
    /// (`saved`: a sync of those projects alone, so a colleague's typing in a shared memo opens no
    /// session of a chart, review 17 s10, N-s10-6), to every device but the sender, so an edit
    /// relayed between own devices (tablet → desk → laptop) does not wait for a sighting's quiet
    /// time (review 17 s9, the relay cost of F9's fix), and a record of a privileged chart never
    /// makes the daemon contact a colleague (N-s9-5). Bounded: only a receive that stored something new calls this, and a vault stores
    /// each record once, so no two devices pass the same records back and forth.
    public func received(_ compartments: Set<CompartmentID>, from sender: DeviceID) {
        startSyncs(afterChangesIn: compartments, except: sender)
    }

    private func startSyncs(afterChangesIn compartments: Set<CompartmentID>, except sender: DeviceID?) {
        guard running.load(ordering: .acquiring), let partners = try? SyncPartners.forSave(of: compartments, in: vault) else { return }
        for device in partners { noticeResume(of: device) }
        let now = clock.monotonic()
        let start = state.withLock { state -> [DeviceID] in
            var start: [DeviceID] = []
            for device in partners where device != sender && address(of: device, in: state) != nil {
                if state.schedule.saved(device, at: now) { start.append(device) } else { state.savedMeanwhile[device, default: []].formUnion(compartments) }
            }
            return start
        }
        for device in start { launch(device, only: compartments) }
    }

    /// Sync was resumed here: the devices waiting out a pause are tried at the next tick.
    public func resumed() {
        let now = clock.monotonic()
        state.withLock { $0.schedule.resumed(at: now) }
    }

    /// A pause here that `device` waits out, lifted by a `sync resume` run in its own process (no
    /// transaction of this one, so `resumed` never ran): the pause is read again whenever the device
    /// is seen or a save concerns it, and once lifted the device is due at once, not up to 15 minutes
    /// later (review 17 s9, N-s9-3). A pause on the device's side is learned only from the device.
    private func noticeResume(of device: DeviceID) {
        guard state.withLock({ $0.schedule.waitsForPauseHere(device) }), (try? SyncControl.isPaused(device, in: vault)) == false else { return }
        let now = clock.monotonic()
        state.withLock { $0.schedule.resumed(device, at: now) }
    }

    /// Where `device` may be, the address to try first: where a sync of this process last reached
    /// it (the channel's pin check proved it was the device there), then where it last announced
    /// itself. An announcement is unauthenticated UDP: one forged to a dead address must not turn
    /// the background sync away from an address that works (review 17 s8, F3); a device that moved
    /// is found at its new announced address when the old one fails.
    private func addresses(of device: DeviceID, in state: State) -> [SocketAddress] {
        HeardAddresses.unique([HeardAddresses.shared.reachedAddress(of: device), state.addresses[device]])
    }

    private func address(of device: DeviceID, in state: State) -> SocketAddress? {
        addresses(of: device, in: state).first
    }

    /// Listens for announcements in short rounds until stopped; one that cannot bind (another daemon
    /// on this machine listens) leaves connections as the only sighting.
    private func hear(on address: SocketAddress) {
        while running.load(ordering: .acquiring) {
            do {
                let heard = try Discovery.listen(on: address, seconds: 1) { _ in false }
                let paired = Set(((try? vault.vault.familyPairings()) ?? []).map(\.peer.deviceID))
                for entry in heard where paired.contains(entry.announcement.deviceID) {
                    HeardAddresses.shared.heard(entry.announcement.deviceID, at: entry.channelAddress, clock: clock)
                    seen(entry.announcement.deviceID, at: entry.channelAddress)
                }
            } catch {
                DaemonLog.note("vaultctl serve: not listening for announcements on \(address): \(error)")
                return
            }
        }
    }

    /// Runs a sync with `device` on a thread of its own, one at a time, and schedules what follows.
    /// `scope`: the compartments of the projects it syncs (a save's), nil for every project.
    private func launch(_ device: DeviceID, only scope: Set<CompartmentID>? = nil) {
        Thread.detachNewThread { [self] in
            working.wait()
            defer { working.signal() }
            let outcome = run(device, only: scope)
            let pausedHere = Self.code(of: outcome) == .paused && (try? SyncControl.isPaused(device, in: vault)) == true
            let (retry, again, saved) = state.withLock { state -> (Double?, Bool, Set<CompartmentID>?) in
                // What was saved meanwhile goes with the next save's sync (a retry syncs every project anyway).
                let saved = state.savedMeanwhile.removeValue(forKey: device)
                switch outcome {
                case .success: state.schedule.finished(device, at: clock.monotonic(), succeeded: true, random: 0, whole: scope == nil)
                case .failure(let error) where Self.code(of: error) == .paused:
                    return (state.schedule.paused(device, at: clock.monotonic(), here: pausedHere), false, nil)
                case .failure(let error) where Self.code(of: error) == .unknownPeer: state.schedule.stopped(device); return (nil, false, nil)
                case .failure: return (state.schedule.finished(device, at: clock.monotonic(), succeeded: false, random: random()), false, nil)
                }
                return (nil, state.schedule.again(device), saved)
            }
            switch outcome {
            case .success(let report): events(.succeeded(device, report))
            case .failure(let error): events(.failed(device, state.withLock { $0.addresses[device] }, code: SyncInitiator.code(of: error), retryIn: retry))
            }
            // Saves made while it ran: one more sync for all of them (of every project if none was kept).
            if again { launch(device, only: saved) }
        }
    }

    /// A pause (here or on the peer: the longest retry, review 17 F16) and a device this vault no
    /// longer syncs with (no retry) are not failures to back off from.
    private static func code(of error: Error) -> SyncExchangeErrorCode? {
        (error as? SyncExchangeError)?.code
    }

    private static func code(of outcome: Result<SyncRunReport, Error>) -> SyncExchangeErrorCode? {
        guard case .failure(let error) = outcome else { return nil }
        return code(of: error)
    }

    private func run(_ device: DeviceID, only scope: Set<CompartmentID>?) -> Result<SyncRunReport, Error> {
        Result {
            guard let pairing = try vault.vault.familyPairings().first(where: { $0.peer.deviceID == device }),
                  try SyncPartners.isPartner(device, in: vault) else {
                throw SyncExchangeError(.unknownPeer, "device \(device) is no longer a paired device this vault syncs with")
            }
            let addresses = state.withLock { self.addresses(of: device, in: $0) }  // reached first (F3)
            guard !addresses.isEmpty else { throw SyncExchangeError(.unknownPeer, "no address is known for \(pairing.peer.name)") }
            events(.started(device, addresses[0]))
            let (client, address) = try SyncInitiator.reaching(device, in: vault, clock: clock) {
                try HeardAddresses.connect(to: pairing.peer, at: addresses, localKeys: keys, timeouts: ChannelTimeouts(idleSeconds: settings.deadlineSeconds))
            }
            var initiator = try SyncInitiator(vault: vault, transport: ChannelSyncTransport(client), clock: clock,
                                              deadlineSeconds: settings.deadlineSeconds)
            initiator.scope = scope
            let report = try initiator.run()
            HeardAddresses.shared.reached(device, at: address)
            return report
        }
    }
}
