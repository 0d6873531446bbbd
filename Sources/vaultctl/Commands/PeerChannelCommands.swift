import CryptoVault
import Dispatch
import Foundation
import PeerChannel

/// `peers ping` and `peers discover`: reaching paired devices over the channel (SECURITY.md §9.9) and
/// hearing LAN announcements (§9.10).
enum PeerChannelCommands {
    static let defaultDiscoverSeconds = 5

    static let ping = Command("peers ping", synopsis: "check that a paired device answers over the channel", usage: "--peer PEER", about: """
        Connects to PEER (a paired device's name or fingerprint) over the encrypted channel, checks
        that it holds the key pinned at pairing, and sends N pings (default 1). Prints the round-trip
        time and how far the peer's clock is from this one. Needs the vault unlocked (the channel uses
        this device's key).
        """, options: Credentials.options + [PeerSelection.option("the paired device: its name or fingerprint"),
                                             Option("--address", value: "ADDR:PORT", "where the peer's 'vaultctl serve --address' listens (default: listen for its announcement, and use the address it came from)", aliases: ["--to"]), Option("--count", value: "N", "pings to send, 1 to 100 (default 1)"), Option("--seconds", value: "N", "how long to listen for the announcement without --address (default \(defaultDiscoverSeconds))"), Option("--announcements", value: "ADDR:PORT", "where to listen for announcements (default 0.0.0.0:\(Announcement.defaultPort))")],
        positionals: 0...1, json: true, examples: ["vaultctl peers ping --peer desk --address 192.168.1.20:\(ChannelServer.defaultPort)",
                                                   "vaultctl peers ping --peer desk --address [fd00::20]:\(ChannelServer.defaultPort)"]) { arguments in
            let count = try arguments.integer("--count", in: 1...100) ?? 1
            let unlocked = try VaultLocation.unlock(arguments)
            let pairing = try PeerSelection.pairing(try PeerSelection.named(arguments), in: unlocked.vault.familyPairings())
            let address = try peerAddress(pairing.peer, given: arguments.value("--address"), arguments)
            let client = try ChannelClient(connectingTo: address, localKeys: unlocked.deviceKeys(), peer: pairing.peer)
            var replies: [[String: Any]] = []
            for sequence in 0..<count {
                let reply = try pingOnce(client, sequence: UInt8(sequence))
                replies.append(["sequence": sequence, "round_trip_ms": reply.roundTrip, "clock_offset_ms": reply.offset])
                if !arguments.has("--json") {
                    Output.line("Reply from \(pairing.peer.name) at \(address): time \(String(format: "%.2f", reply.roundTrip)) ms, its clock \(reply.offset >= 0 ? "+" : "")\(reply.offset) ms")
                }
            }
            if arguments.has("--json") {
                Output.json(["peer": DeviceCommand.json(pairing.peer), "address": address.description, "replies": replies])
            }
        }

    /// One ping: the round-trip time and the peer's clock minus the midpoint of the round trip.
    private static func pingOnce(_ client: ChannelClient, sequence: UInt8) throws -> (roundTrip: Double, offset: Int64) {
        let sent = VaultClock.system.date()
        let answer = try PingService.parseAnswer(client.request(PingService.kind, body: [sequence]))
        let received = VaultClock.system.date()
        guard answer.echo == [sequence] else {
            throw CommandError(message: "the peer's answer does not echo this ping", exitCode: .dataError)
        }
        let midpoint = (sent.timeIntervalSince1970 + received.timeIntervalSince1970) / 2 * 1000
        return (received.timeIntervalSince(sent) * 1000, Int64(clamping: answer.milliseconds) - Int64(midpoint))
    }

    /// Where each of `peers` announced itself, heard in ONE listen of at most --seconds that ends
    /// once every one was heard: `sync now` without --peer listened 5 s per device in turn, each
    /// silent device adding its 5 s (F17-8). A device not heard is absent.
    static func announcedAddresses(of peers: [DeviceProfile], _ arguments: ParsedArguments) throws -> [DeviceID: SocketAddress] {
        let seconds = try arguments.integer("--seconds", in: 1...600) ?? defaultDiscoverSeconds
        let wanted = Set(peers.map(\.deviceID))
        var found: [DeviceID: SocketAddress] = [:]
        _ = try Discovery.listen(on: announcementAddress(arguments), seconds: Double(seconds)) { heard in
            let device = heard.announcement.deviceID
            if wanted.contains(device), found[device] == nil { found[device] = heard.channelAddress }
            return found.count == wanted.count
        }
        return found
    }

    /// The address `announced` holds for `peer` (from `announcedAddresses`), or why it has none.
    static func announcedAddress(of peer: DeviceProfile, in announced: [DeviceID: SocketAddress], _ arguments: ParsedArguments) throws -> SocketAddress {
        guard let address = announced[peer.deviceID] else {
            let seconds = try arguments.integer("--seconds", in: 1...600) ?? defaultDiscoverSeconds
            throw CommandError(message: "\(peer.name) did not announce itself within \(seconds) s", exitCode: .ioError,
                               hint: "give its address with --address ADDR:PORT, or run it with 'vaultctl serve --announce'")
        }
        return address
    }

    /// --address, or where the peer's announcement came from. An announcement only says where to try: the
    /// handshake then checks the pinned key, so a forged one can only make the ping fail.
    static func peerAddress(_ peer: DeviceProfile, given address: String?, _ arguments: ParsedArguments) throws -> SocketAddress {
        if let address {
            let parsed = try SocketAddress(parsing: address)
            // Port 0 is a listener's "any port"; no device answers there (F17-8: it was tried, 74).
            guard parsed.port != 0 else {
                throw UsageError(message: "--address \(address): port 0 is not where a device listens; give the port its 'vaultctl serve' prints",
                                 usage: arguments.usage)
            }
            return parsed
        }
        return try announcedAddress(of: peer, in: announcedAddresses(of: [peer], arguments), arguments)
    }

    private static func announcementAddress(_ arguments: ParsedArguments) throws -> SocketAddress {
        try arguments.value("--announcements").map(SocketAddress.init(parsing:)) ?? Discovery.defaultAddress
    }

    static let discover = Command("peers discover", synopsis: "list devices announcing themselves on the LAN", about: """
        Listens for the announcements of 'vaultctl serve --announce' for N seconds (default
        \(defaultDiscoverSeconds)) and lists each device once: name, fingerprint, channel address, and
        whether this vault is paired with it. Announcements are not authenticated: anyone on the LAN
        can announce any name. Trust comes only from pairing; compare fingerprints before you pair.
        """, options: [Option("--seconds", value: "N", "how long to listen, 1 to 600 (default \(defaultDiscoverSeconds))"), Option("--announcements", value: "ADDR:PORT", "where to listen (default 0.0.0.0:\(Announcement.defaultPort))")], json: true, examples: ["vaultctl peers discover --seconds 10"]) { arguments in
            let seconds = try arguments.integer("--seconds", in: 1...600) ?? defaultDiscoverSeconds
            let address = try announcementAddress(arguments)
            // The vault only marks paired devices; discovery works without one.
            let paired = Set(((try? VaultLocation.open(arguments).familyPairings()) ?? []).map(\.peer.deviceID))
            let heard = try Discovery.listen(on: address, seconds: Double(seconds))
            if arguments.has("--json") {
                Output.json(heard.map { json($0, paired: paired.contains($0.announcement.deviceID)) })
                return
            }
            if heard.isEmpty { Output.line("No announcements heard in \(seconds) s.") }
            for device in heard {
                let isPaired = paired.contains(device.announcement.deviceID)
                Output.line("\(device.announcement.name)  \(device.announcement.fingerprint)  \(device.channelAddress)  \(isPaired ? "paired" : "not paired")")
            }
        }

    private static func json(_ heard: Discovery.Heard, paired: Bool) -> [String: Any] {
        ["name": heard.announcement.name, "fingerprint": heard.announcement.fingerprint,
         "address": heard.channelAddress.description, "paired": paired]
    }
}
