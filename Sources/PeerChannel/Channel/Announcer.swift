import CryptoVault
import Dispatch
import Foundation
import Synchronization

/// Broadcasts this device's `Announcement` every `intervalSeconds` to `destination` (by default the
/// LAN broadcast address, port 7422) until stopped (`vaultctl serve --announce`). Announcements are
/// hints only (SECURITY.md §9.10): they help a paired device find the channel's port, nothing more.
public final class Announcer: Sendable {
    public static let defaultDestination = SocketAddress(host: "255.255.255.255", port: Announcement.defaultPort)

    public let announcement: Announcement
    public let destination: SocketAddress
    public let intervalSeconds: Double
    private let descriptor: Int32
    private let running = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)

    public init(_ announcement: Announcement, destination: SocketAddress = defaultDestination,
                intervalSeconds: Double = 5) throws(PeerChannelError) {
        guard intervalSeconds.isFinite, intervalSeconds >= 0.05, destination.port != 0 else {
            throw PeerChannelError(.invalidConfiguration, "announcements need an interval of at least 0.05 s and a destination port")
        }
        self.announcement = announcement
        self.destination = destination
        self.intervalSeconds = intervalSeconds
        descriptor = try SocketCalls.udpSocket(for: destination)
    }

    deinit { SocketCalls.close(descriptor) }

    /// Sends the first announcement now and then one per interval, on a background thread.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let datagram = announcement.serialized()
        Thread.detachNewThread { [self] in
            while running.load(ordering: .acquiring) {
                // A send that fails (no route yet, say) is retried at the next interval.
                try? SocketCalls.sendDatagram(descriptor, datagram, to: destination)
                sleepUntilNextOrStop()
            }
            stopped.signal()
        }
    }

    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        stopped.wait()
    }

    /// Sleeps one interval in short steps, so `stop()` returns quickly.
    private func sleepUntilNextOrStop() {
        let clock = VaultClock.system
        let end = clock.monotonic() + intervalSeconds
        while running.load(ordering: .acquiring), clock.monotonic() < end { usleep(20_000) }
    }
}
