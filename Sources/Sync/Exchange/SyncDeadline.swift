import CryptoVault

/// How long one run of the exchange may take (SECURITY.md §19.9): a peer that answers slowly or
/// stops answering ends the run with `deadlineExceeded` once this much time has passed since it
/// began, whatever step it was in. Every request is given only the time left (`SyncTransport`),
/// and none starts after the end. What was stored before stays: each step is its own transaction.
struct SyncDeadline {
    let seconds: Double
    let end: Double
    let clock: VaultClock

    init(seconds: Double, clock: VaultClock) {
        self.seconds = seconds
        self.clock = clock
        end = clock.monotonic() + seconds
    }

    /// The seconds left before the end, or the error that ends the run now.
    func remaining(with peer: DeviceProfile) throws -> Double {
        let left = end - clock.monotonic()
        guard left > 0 else { throw Self.exceeded(seconds, peer) }
        return left
    }

    static func exceeded(_ seconds: Double, _ peer: DeviceProfile) -> SyncExchangeError {
        SyncExchangeError(.deadlineExceeded, "\(peer.name) did not finish the sync within \(Int(seconds.rounded(.up))) s: it answers too slowly or "
                          + "stopped answering; what was taken before stays, and the next sync goes on from there")
    }
}
