import CryptoVault
#if canImport(Glibc)
import Glibc
#endif

/// Listens for `Announcement`s for a while and lists what it heard (`vaultctl peers discover`).
/// What it hears is a hint (SECURITY.md §9.10): anyone on the LAN can announce any name and id. A
/// device found this way is trusted only when a channel to it passes the handshake's pin check.
public enum Discovery {
    /// One device heard: its announcement and where it came from.
    public struct Heard: Sendable, Equatable {
        public let announcement: Announcement
        /// The sender's IP address with the announced channel port: where to connect.
        public let channelAddress: SocketAddress
    }

    /// At most this many distinct devices are kept, so a flood of forged announcements cannot grow
    /// memory; later ones are ignored.
    public static let maximumHeard = 256

    /// Listens on `address` (by default every interface, port 7422) for `seconds`, or until `stop`
    /// returns true for something heard. Datagrams that do not parse are ignored. The result is
    /// deduplicated by device id and address, in the order first heard.
    /// Every interface, port 7422.
    public static let defaultAddress = SocketAddress(host: "0.0.0.0", port: Announcement.defaultPort)

    public static func listen(on address: SocketAddress = defaultAddress,
                              seconds: Double, clock: VaultClock = .system, stop: (Heard) -> Bool = { _ in false }) throws(PeerChannelError) -> [Heard] {
        let descriptor = try SocketCalls.udpSocket(for: address)
        defer { SocketCalls.close(descriptor) }
        try SocketCalls.bindDatagram(descriptor, to: address)
        let deadline = clock.monotonic() + max(0, seconds)
        var heard: [Heard] = []
        while let left = millisecondsLeft(until: deadline, clock), try SocketCalls.wait(descriptor, for: Int16(POLLIN), milliseconds: left) {
            while let (datagram, sender) = try SocketCalls.receiveDatagram(descriptor, maximum: Announcement.maximumLength) {
                guard let announcement = try? Announcement(parsing: datagram) else { continue }
                let entry = Heard(announcement: announcement, channelAddress: SocketAddress(host: sender.host, port: announcement.channelPort))
                let known = heard.contains { $0.announcement.deviceID == announcement.deviceID && $0.channelAddress == entry.channelAddress }
                if !known, heard.count < maximumHeard { heard.append(entry) }
                if stop(entry) { return heard }
            }
        }
        return heard
    }

    private static func millisecondsLeft(until deadline: Double, _ clock: VaultClock) -> Int32? {
        let left = deadline - clock.monotonic()
        guard left > 0 else { return nil }
        return Int32(min(left * 1000, Double(Int32.max)))
    }
}
