import CryptoVault
import Foundation
import PeerChannel

/// The daemon's network side (`serve --address`, SECURITY.md §9.9): the channel server for paired
/// devices, with every service the vault offers them, and the LAN announcer (`--announce`).
public struct ChannelListening: Sendable {
    public let server: ChannelServer
    public let announcer: Announcer?

    /// The channel server at `address` (ADDR:PORT) with every service the vault offers, and with
    /// `announce` the LAN announcer.
    public static func configured(address: String, announce: Bool, vault: UnlockedVault) throws -> ChannelListening {
        let keys = try vault.deviceKeys()
        let server = try ChannelServer(address: try SocketAddress(parsing: address), localKeys: keys,
                                       pinnedPeers: { [vault] in try vault.vault.familyPairings() },
                                       services: try ChannelServices.all(vault: vault, keys: keys),
                                       events: { event in recordEvent(event) })
        let announcer = try announce
            ? Announcer(try Announcement(deviceID: keys.profile.deviceID, name: keys.profile.name, channelPort: server.address.port))
            : nil
        return ChannelListening(server: server, announcer: announcer)
    }

    func start() {
        server.start()
        announcer?.start()
        DaemonLog.line("vaultctl serve: channel for paired devices on \(server.address)\(announcer == nil ? "" : ", announced on the LAN")")
    }

    func stop() {
        announcer?.stop()
        server.stop()
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
