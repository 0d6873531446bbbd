import CryptoVault
import Foundation
import PeerChannel
import Sync

/// The daemon's network side (`serve --address`, SECURITY.md §9.9): the channel server for paired
/// devices, with every service the vault offers them, and the LAN announcer (`--announce`).
public struct ChannelListening: Sendable {
    public let server: ChannelServer
    public let announcer: Announcer?
    /// Syncs with the owner's own devices as they are seen: connecting here, or (with `announce`)
    /// announcing themselves on the LAN, where this daemon then listens too.
    public let background: BackgroundSync

    /// The channel server at `address` (ADDR:PORT) with every service the vault offers, background
    /// sync, and with `announce` the LAN announcer broadcasting to `announcePort` (and listening there
    /// for the owner's devices' announcements).
    public static func configured(address: String, announce: Bool, announcePort: UInt16 = Announcement.defaultPort,
                                  vault: UnlockedVault) throws -> ChannelListening {
        let keys = try vault.deviceKeys()
        var settings = BackgroundSync.Settings()
        settings.listen = announce ? try SocketAddress(parsing: "\(Discovery.defaultAddress.host):\(announcePort)") : nil
        let background = BackgroundSync(vault: vault, keys: keys, settings: settings, events: { recordBackground($0) })
        let server = try ChannelServer(address: try SocketAddress(parsing: address), localKeys: keys,
                                       pinnedPeers: { [vault] in try vault.vault.familyPairings() },
                                       // The owner's own devices keep slots someone else's cannot take (F5).
                                       isPriority: { [vault] in (try? vault.vault.trust(of: $0)) == .mine },
                                       services: try ChannelServices.all(vault: vault, keys: keys),
                                       events: { event in
                                           recordEvent(event)
                                           if case .authenticated(let peer, _) = event { background.seen(peer.deviceID, at: nil) }
                                       })
        let announcer = try announce
            ? Announcer(try Announcement(deviceID: keys.profile.deviceID, name: keys.profile.name, channelPort: server.address.port),
                        destination: try SocketAddress(parsing: "\(Announcer.defaultDestination.host):\(announcePort)"))
            : nil
        return ChannelListening(server: server, announcer: announcer, background: background)
    }

    public func start() {
        server.start()
        announcer?.start()
        background.start()
        DaemonLog.line("vaultctl serve: channel for paired devices on \(server.address)\(announcer == nil ? "" : ", announced on the LAN")")
        if announcer != nil, Self.isLoopback(server.address.host) {
            // Other machines hear the announcement and then cannot connect to it (reviewer s17, F17-18).
            DaemonLog.note("vaultctl serve: warning: --announce with a loopback --address (\(server.address.host)): your other devices hear "
                           + "this one but cannot connect to it; to sync over the LAN listen on an address they reach (--address 0.0.0.0:PORT)")
        }
    }

    /// A loopback host (127.0.0.0/8, ::1, localhost) that only this machine reaches.
    static func isLoopback(_ host: String) -> Bool {
        host.hasPrefix("127.") || host == "::1" || host == "[::1]" || host == "localhost"
    }

    public func stop() {
        background.stop()
        announcer?.stop()
        server.stop()
    }

    /// Background syncs go to stderr, the daemon's log (each exchange is in the audit log too).
    private static func recordBackground(_ event: BackgroundSync.Event) {
        switch event {
        case .started: break
        case .succeeded(_, let report):
            DaemonLog.note("vaultctl serve: background sync: sent \(report.sent), received \(report.received) record(s)"
                           + report.notes.map { "; \($0)" }.joined())
        case .failed(let device, let address, let code, let retry):
            let tried = address.map { " with \(device.hex.prefix(16)) at \($0)" } ?? ""
            DaemonLog.note("vaultctl serve: background sync\(tried) failed (\(code))" + (retry.map { "; next try in \(Int($0.rounded(.up))) s" } ?? ""))
        }
    }

    /// Connections of paired devices and refusals go to stderr, the daemon's log. (The services
    /// record what they do in the audit log themselves.)
    private static func recordEvent(_ event: ChannelServer.Event) {
        switch event {
        case .authenticated(let peer, let address):
            DaemonLog.note("vaultctl serve: \(peer.name) (\(peer.fingerprint)) connected from \(address)")
        case .closed(let address, let peer, let reason) where reason.code != .connectionClosed:
            DaemonLog.note("vaultctl serve: connection from \(peer?.name ?? address.description) ended: \(reason.message)")
        case .evictedOldestUnauthenticated:
            DaemonLog.note("vaultctl serve: too many connections in their handshake; the oldest was dropped")
        default:
            break
        }
    }
}

/// Every service the daemon offers paired devices over the channel (ping is built in).
public enum ChannelServices {
    public static func all(vault: UnlockedVault, keys: DeviceKeys) throws -> [any ChannelService] {
        [ReplicationService(vault: vault), VaultCopyService(vault: vault), try WitnessService(vault: vault, keys: keys), ShareGrantService(vault: vault),
         SyncChannelService(vault: vault)]
    }
}
