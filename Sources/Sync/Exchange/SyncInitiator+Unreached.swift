import CryptoVault

/// A sync that never reached the device (no address answered, the channel's handshake failed, the
/// device went silent before the exchange began) is an attempt too: `sync status` shows when it
/// was tried and why it failed, whichever of `sync now` and the daemon's background sync tried it
/// (review 17 F17-10: a daemon retrying a stopped device for an hour left `sync status` showing the
/// last manual sync and no error).
extension SyncInitiator {
    /// `connect`'s connection to `device`; its failure kept (`recordUnreached`) and thrown on.
    public static func reaching<Connection>(_ device: DeviceID, in vault: UnlockedVault, clock: VaultClock = .system,
                                            _ connect: () throws -> Connection) throws -> Connection {
        do {
            return try connect()
        } catch {
            // Keeping it must not hide why the device was not reached: a vault that cannot record
            // the attempt still says that.
            try? recordUnreached(device, error: error, in: vault, clock: clock)
            throw error
        }
    }

    /// Keeps the failed attempt with `device` (`error`'s code, `SyncInitiator.code(of:)`) in the
    /// exchange's row of it. The first failure of a run of them is recorded in the audit log
    /// (`sync.exchange` with its error, as a failed exchange is); the retries that fail the same way
    /// after it only move the row's time, so a device offline for a week does not fill the log.
    public static func recordUnreached(_ device: DeviceID, error: Error, in vault: UnlockedVault, clock: VaultClock = .system) throws {
        let code = Self.code(of: error)
        try vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            let before = try store.peer(device)?.lastError
            try store.recordAttempt(device, at: clock.now(), error: code, sent: 0, received: 0)
            guard before != SyncExchangeStore.bounded(code) else { return }
            try tx.record(.syncExchange, details: [.init("peer", device.hex), .init("projects", "0"), .init("sent", "0"),
                                                   .init("received", "0"), .init("refused", "0"), .init("error", code)])
        }
    }
}
