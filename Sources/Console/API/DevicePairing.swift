import CryptoVault
import Foundation
import PeerChannel
import Sync
import Synchronization

/// Pairing a new device from the console's devices page: at most one wait at a time, on its own
/// thread, showing the one-time code the other device types (`vaultctl pair join`). It is the CLI's
/// `pair host` (PairingHost.serveUntilPaired, the same lease: 5 minutes, 3 failed attempts), so the
/// pairing and every failed attempt are recorded the same way, and the start is recorded too
/// (`console.pair-start`). The code is handed only to the request that started the wait. The owner
/// can cancel; the console stopping cancels and refuses new waits.
final class DevicePairing: Sendable {
    enum State: Sendable {
        case idle
        case waiting(Attempt)
        case paired(DeviceProfile, DeviceTrust)
        case failed(String)
    }

    /// One wait: what the page is shown, and the flag its thread checks between connections.
    final class Attempt: Sendable {
        let address: String
        let expiresAt: Date
        let failedAttempts = Atomic(0)
        let cancelled = Atomic(false)

        init(address: String, expiresAt: Date) {
            self.address = address
            self.expiresAt = expiresAt
        }
    }

    static let connectionTimeoutSeconds = 30.0
    private let state = Mutex(State.idle)
    private let stopped = Atomic(false)

    /// Binds `address`, reserves the one wait (409 if one waits, or the console is stopping), records
    /// the start, and returns the code for the page that asked.
    func start(vault: UnlockedVault, address: SocketAddress, trust: DeviceTrust) throws -> (code: String, attempt: Attempt) {
        let listener = try TCPListener(address: address)
        let keys = try vault.deviceKeys()
        let lease = PairingCodeLease(code: try PairingCode.generate())
        let attempt = Attempt(address: "\(listener.address)",
                              expiresAt: VaultClock.system.date().addingTimeInterval(PairingCodeLease.lifetimeSeconds))
        let reserved = state.withLock { state -> Bool in
            if stopped.load(ordering: .sequentiallyConsistent) { return false }
            if case .waiting = state { return false }
            state = .waiting(attempt)
            return true
        }
        guard reserved else { throw ConsoleError(.conflict, "a pairing is already waiting (or the console is stopping): cancel it first") }
        do {
            try vault.transaction { tx in try tx.record(ConsoleAuditActions.pairStart, details: [.init("address", attempt.address)]) }
        } catch {
            state.withLock { $0 = .failed("the pairing could not be recorded: \(error)") }
            throw error
        }
        Thread.detachNewThread { [self] in wait(PairingHost(vault: vault, keys: keys, lease: lease), on: listener, attempt, trust: trust) }
        return (lease.code.displayed, attempt)
    }

    /// Stops the wait now: the page is told at once, and the thread stops within a second (an attempt
    /// already being served may still complete, and then the device is shown as paired).
    func cancel() {
        state.withLock { state in
            guard case .waiting(let attempt) = state else { return }
            attempt.cancelled.store(true, ordering: .sequentiallyConsistent)
            state = .failed("pairing was cancelled on this device")
        }
    }

    /// The console is stopping: cancel, and refuse any new wait.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        cancel()
    }

    /// Serves the wait; a device that pairs gets the trust level chosen on the page, recorded as
    /// `peer.trust` (as `pair host --trust` does).
    private func wait(_ host: PairingHost, on listener: TCPListener, _ attempt: Attempt, trust: DeviceTrust) {
        var host = host
        let outcome: State
        do {
            let pairing = try host.serveUntilPaired(on: listener, connectionTimeoutSeconds: Self.connectionTimeoutSeconds,
                                                    stopping: { attempt.cancelled.load(ordering: .sequentiallyConsistent) }) { _, _ in
                attempt.failedAttempts.add(1, ordering: .sequentiallyConsistent)
            }
            try host.vault.setTrustPassingOnDemotion(trust, of: pairing, atPairing: true)
            outcome = .paired(pairing.peer, trust)
        } catch let error as PeerChannelError {
            outcome = .failed(error.message)
        } catch {
            outcome = .failed("the pairing stopped: \(error)")
        }
        // A completed pairing is always shown; a failure only if this wait is still the one shown.
        state.withLock { state in
            if case .paired = outcome { state = outcome; return }
            if case .waiting(let shown) = state, shown === attempt { state = outcome }
        }
    }

    /// The state as the page polls it; never the code.
    var json: [String: Any] {
        switch state.withLock({ $0 }) {
        case .idle: ["state": "idle"]
        case .waiting(let attempt):
            ["state": "waiting", "address": attempt.address, "expires_in": max(0, Int(attempt.expiresAt.timeIntervalSince(VaultClock.system.date()))),
             "failed_attempts": attempt.failedAttempts.load(ordering: .sequentiallyConsistent)]
        case .paired(let peer, let trust): ["state": "paired", "device": DeviceRoutes.json(peer), "trust": trust.rawValue]
        case .failed(let reason): ["state": "failed", "reason": reason]
        }
    }
}
