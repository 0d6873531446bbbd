import CryptoVault
import Foundation
import PeerChannel

/// The daemon's network side (`serve --listen`, SECURITY.md §9.9): the channel server for paired
/// devices, with every service the vault offers them, and the LAN announcer (`--announce`).
struct ChannelListening: Sendable {
    let server: ChannelServer
    let announcer: Announcer?

    static let options = [
        Option("--listen", value: "ADDR:PORT",
               "also serve paired devices over the encrypted channel there (e.g. 0.0.0.0:\(ChannelServer.defaultPort)): ping, replication, witnessing, sharing"),
        Option("--announce", "with --listen, broadcast this device's name and port on the LAN every few seconds (a hint for 'peers discover'; trust comes from pairing)"),
    ]

    /// The channel configured by the command line, or nil without `--listen`.
    static func configured(_ arguments: ParsedArguments, vault: UnlockedVault) throws -> ChannelListening? {
        guard let listen = arguments.value("--listen") else {
            if arguments.has("--announce") { throw UsageError(message: "--announce needs --listen", usage: arguments.usage) }
            return nil
        }
        let keys = try vault.deviceKeys()
        let server = try ChannelServer(address: try SocketAddress(parsing: listen), localKeys: keys,
                                       pinnedPeers: { [vault] in try vault.vault.familyPairings() },
                                       services: try ChannelServices.all(vault: vault, keys: keys),
                                       events: { event in recordEvent(event) })
        let announcer = try arguments.has("--announce")
            ? Announcer(try Announcement(deviceID: keys.profile.deviceID, name: keys.profile.name, channelPort: server.address.port))
            : nil
        return ChannelListening(server: server, announcer: announcer)
    }

    func start() {
        server.start()
        announcer?.start()
        Output.line("vaultctl serve: channel for paired devices on \(server.address)\(announcer == nil ? "" : ", announced on the LAN")")
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
            Output.note("vaultctl serve: \(peer.name) (\(peer.fingerprint)) connected from \(address)")
        case .closed(let address, let peer, let reason) where reason.code != .connectionClosed:
            Output.note("vaultctl serve: connection from \(peer?.name ?? address.description) ended: \(reason.message)")
        case .evictedOldestUnauthenticated:
            Output.note("vaultctl serve: too many connections in their handshake; the oldest was dropped")
        default:
            break
        }
    }
}

/// Every service the daemon offers paired devices over the channel (ping is built in).
enum ChannelServices {
    static func all(vault: UnlockedVault, keys: DeviceKeys) throws -> [any ChannelService] {
        [ReplicationService(vault: vault), try WitnessService(vault: vault, keys: keys), ShareGrantService(vault: vault)]
    }
}
