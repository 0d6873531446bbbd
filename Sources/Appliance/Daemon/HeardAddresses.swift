import CryptoVault
import PeerChannel
import Synchronization

/// Where this daemon last heard each paired device announce its channel (a hint, as every
/// announcement: the channel's pin check decides). 'Sync now' without an address asks here first:
/// while the daemon listens for announcements, a second listener in the process could not bind the port.
public final class HeardAddresses: Sendable {
    public static let shared = HeardAddresses()
    /// An announcement older than this is not taken as where the device is.
    public static let freshSeconds = 300.0

    private let addresses = Mutex<[DeviceID: (address: SocketAddress, at: Double)]>([:])

    func heard(_ device: DeviceID, at address: SocketAddress, clock: VaultClock) {
        let now = clock.monotonic()
        addresses.withLock { $0[device] = (address, now) }
    }

    /// Where a sync this process ran (`sync now`, the console's) last reached each device: the
    /// channel's pin check proved it was the device. Kept for the process's life; a sync after a save
    /// goes there when no announcement says otherwise.
    private let reached = Mutex<[DeviceID: SocketAddress]>([:])

    /// A sync with `device` at `address` succeeded.
    public func reached(_ device: DeviceID, at address: SocketAddress) {
        reached.withLock { $0[device] = address }
    }

    /// Where a sync of this process last reached `device`, if one did.
    public func reachedAddress(of device: DeviceID) -> SocketAddress? {
        reached.withLock { $0[device] }
    }

    /// Where to look for `device`, in order: where a sync of this process last reached it (proven
    /// by the pin check), then the address it announced within `freshSeconds` (unauthenticated UDP:
    /// a forged one must not turn syncs away from an address that works, review 17 s8, F3).
    public func candidates(of device: DeviceID, clock: VaultClock = .system) -> [SocketAddress] {
        Self.unique([reachedAddress(of: device), address(of: device, clock: clock)])
    }

    static func unique(_ addresses: [SocketAddress?]) -> [SocketAddress] {
        addresses.compactMap { $0 }.reduce(into: []) { kept, address in if !kept.contains(address) { kept.append(address) } }
    }

    /// The channel to `peer` at the first of `addresses` where it answers and passes the pin check,
    /// with that address; the last address's failure when none does.
    public static func connect(to peer: DeviceProfile, at addresses: [SocketAddress], localKeys: DeviceKeys,
                               timeouts: ChannelTimeouts = ChannelTimeouts()) throws -> (ChannelClient, SocketAddress) {
        var failure: Error = PeerChannelError(.connectionFailed, "no address is known for \(peer.name)")
        for address in addresses {
            do {
                return (try ChannelClient(connectingTo: address, localKeys: localKeys, peer: peer, timeouts: timeouts), address)
            } catch {
                failure = error
            }
        }
        throw failure
    }

    /// The address `device` announced within `freshSeconds`, if any.
    public func address(of device: DeviceID, clock: VaultClock = .system) -> SocketAddress? {
        let now = clock.monotonic()
        return addresses.withLock { $0[device].flatMap { now - $0.at <= Self.freshSeconds ? $0.address : nil } }
    }
}
