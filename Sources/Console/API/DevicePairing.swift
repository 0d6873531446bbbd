import CryptoVault
import Foundation
import PeerChannel
import Synchronization

/// Pairing a new device from the console's devices page: at most one wait at a time, on its own
/// thread, showing the one-time code the other device types (`vaultctl pair join`). It is the CLI's
/// `pair host` (PairingHost.serveUntilPaired, the same lease: 5 minutes, 3 failed attempts), so the
/// pairing and every failed attempt are recorded the same way. The owner can cancel it; the console
/// stopping cancels it too.
final class DevicePairing: Sendable {
    enum State: Sendable {
        case idle
        case waiting(code: String, address: String, expiresAt: Date, failedAttempts: Int)
        case paired(DeviceProfile)
        case failed(String)
    }

    static let connectionTimeoutSeconds = 30.0
    private let state = Mutex(State.idle)
    private let cancelled = Atomic(false)

    var current: State { state.withLock { $0 } }

    /// Starts waiting on `address` with a new code; a second start while one waits is a conflict.
    func start(vault: UnlockedVault, address: SocketAddress) throws {
        let busy = state.withLock { if case .waiting = $0 { return true } else { return false } }
        if busy { throw ConsoleError(.conflict, "a pairing is already waiting: cancel it first") }
        let listener = try TCPListener(address: address)
        let keys = try vault.deviceKeys()
        let lease = PairingCodeLease(code: try PairingCode.generate())
        cancelled.store(false, ordering: .sequentiallyConsistent)
        state.withLock {
            $0 = .waiting(code: lease.code.displayed, address: "\(listener.address)",
                          expiresAt: VaultClock.system.date().addingTimeInterval(PairingCodeLease.lifetimeSeconds), failedAttempts: 0)
        }
        Thread.detachNewThread { [self] in wait(PairingHost(vault: vault, keys: keys, lease: lease), on: listener) }
    }

    func cancel() { cancelled.store(true, ordering: .sequentiallyConsistent) }

    private func wait(_ host: PairingHost, on listener: TCPListener) {
        var host = host
        do {
            let pairing = try host.serveUntilPaired(on: listener, connectionTimeoutSeconds: Self.connectionTimeoutSeconds,
                                                    stopping: { cancelled.load(ordering: .sequentiallyConsistent) }) { _, _ in
                state.withLock { if case .waiting(let code, let address, let expiresAt, let failed) = $0 {
                    $0 = .waiting(code: code, address: address, expiresAt: expiresAt, failedAttempts: failed + 1)
                } }
            }
            state.withLock { $0 = .paired(pairing.peer) }
        } catch let error as PeerChannelError {
            state.withLock { $0 = .failed(error.message) }
        } catch {
            state.withLock { $0 = .failed("the pairing stopped: \(error)") }
        }
    }

    /// The state as the page shows it; the code only while it is waiting.
    var json: [String: Any] {
        switch current {
        case .idle: ["state": "idle"]
        case .waiting(let code, let address, let expiresAt, let failed):
            ["state": "waiting", "code": code, "address": address, "expires_in": max(0, Int(expiresAt.timeIntervalSince(VaultClock.system.date()))),
             "failed_attempts": failed]
        case .paired(let peer): ["state": "paired", "device": DeviceRoutes.json(peer)]
        case .failed(let reason): ["state": "failed", "reason": reason]
        }
    }
}
