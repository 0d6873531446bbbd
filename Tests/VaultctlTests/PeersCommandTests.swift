import Appliance
import AuditChain
import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PeerChannel
import Testing

/// `vaultctl peers revoke`, `peers ping` and `peers discover` (SECURITY.md §9.9, §9.10).
@Suite(.serialized)
struct PeersCommandTests {
    /// Two vaults paired through the CLI.
    static func pairedVaults() throws -> (desk: CLIVault, laptop: CLIVault) {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try PairCommandTests.startHost(desk)
        let joined = try PairCommandTests.join(laptop, host.address, code: host.code)
        let hosted = host.finish()
        guard joined.status == 0, hosted.status == 0 else { throw CLIError(message: "pairing failed: \(joined.stderr) \(hosted.stderr)") }
        return (desk, laptop)
    }

    static func fingerprint(_ vault: CLIVault) throws -> String {
        let identity = try #require(try PairCommandTests.json(try vault.run(["device", "--json"])) as? [String: Any])
        return try #require(identity["fingerprint"] as? String)
    }

    @Test func revokeForgetsTheDeviceAndAuditsIt() throws {
        let (desk, laptop) = try Self.pairedVaults()
        let laptopFingerprint = try Self.fingerprint(laptop)
        let revoked = try desk.run(["peers", "revoke", "--peer", laptopFingerprint.uppercased()])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout.contains("Revoked ") && revoked.stdout.contains(laptopFingerprint))
        #expect(try PairCommandTests.pairedIDs(desk).isEmpty)
        let log = try desk.run(["audit", "log", "--json", "--action", "peer"])
        let actions = try #require(try PairCommandTests.json(log) as? [[String: Any]]).compactMap { $0["action"] as? String }
        #expect(actions == ["peer.pair", "peer.trust", "peer.revoke"])
        // Again: nothing left to revoke.
        let again = try desk.run(["peers", "revoke", laptopFingerprint])
        #expect(again.status == 66)
        #expect(again.stderr.contains("no paired device"))
    }

    @Test func pairingWithTrustMineAndChangingItLaterAreRecordedOnEachSide() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try PairCommandTests.startHost(desk, ["--address", "127.0.0.1:0", "--trust", "mine"])
        let joined = try PairCommandTests.join(laptop, host.address, code: host.code, extra: ["--trust", "other"])
        let hosted = host.finish()
        #expect(joined.status == 0 && hosted.status == 0, "\(joined.stderr) \(hosted.stderr)")
        #expect(hosted.stdout.contains("your own device") && joined.stdout.contains("someone else's device"))
        func trust(_ vault: CLIVault) throws -> [String?] {
            try #require(try PairCommandTests.json(try vault.run(["peers", "list", "--json"], unlock: false)) as? [[String: Any]]).map { $0["trust"] as? String }
        }
        #expect(try trust(desk) == ["mine"] && trust(laptop) == ["other"])
        let changed = try laptop.run(["peers", "trust", "--peer", try Self.fingerprint(desk), "mine"])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try trust(laptop) == ["mine"])
        let unchanged = try laptop.run(["peers", "trust", "--peer", try Self.fingerprint(desk), "mine"])
        #expect(unchanged.stdout.contains("nothing changed"))
        let wrong = try laptop.run(["peers", "trust", "--peer", try Self.fingerprint(desk), "everyone"])
        #expect(wrong.status == 64)
        let badFlag = try laptop.run(["pair", "join", "--address", "127.0.0.1:1", "--trust", "family"])
        #expect(badFlag.status == 64 && badFlag.stderr.contains("--trust is 'mine' or 'other'"))
        let log = try laptop.run(["audit", "log", "--json", "--action", "peer.trust"])
        let entries = try #require(try PairCommandTests.json(log) as? [[String: Any]])
        #expect(entries.count == 2, "\(entries)")
        let deskLog = try desk.run(["audit", "log", "--json", "--action", "peer.trust"])
        #expect(try #require(try PairCommandTests.json(deskLog) as? [[String: Any]]).count == 1)
    }

    /// The desk's channel, served from this process with the desk vault's own keys and pins.
    static func serveDesk(_ desk: CLIVault, on address: String = "127.0.0.1:0") throws -> ChannelServer {
        let vault = try Vault.open(at: desk.directory, journal: AuditLog(), modules: VaultModules.all)
        let unlocked = try vault.unlock(with: .passphrase(try SecureBytes(copying: Array(CLIVault.passphrase.utf8))))
        let server = try ChannelServer(address: SocketAddress(parsing: address), localKeys: unlocked.deviceKeys(),
                                       pinnedPeers: { try vault.familyPairings() }, services: [])
        server.start()
        return server
    }

    @Test func pingReachesAPairedDeviceAndFailsOnceRevoked() throws {
        let (desk, laptop) = try Self.pairedVaults()
        let server = try Self.serveDesk(desk)
        defer { server.stop() }
        let pinged = try laptop.run(["peers", "ping", "--peer", try Self.fingerprint(desk), "--address", server.address.description, "--count", "3"])
        #expect(pinged.status == 0, "\(pinged.stderr)")
        #expect(pinged.stdout.split(separator: "\n").filter { $0.hasPrefix("Reply from ") }.count == 3)
        #expect(try desk.run(["peers", "revoke", try Self.fingerprint(laptop)]).status == 0)
        let refused = try laptop.run(["peers", "ping", try Self.fingerprint(desk), "--to", server.address.description])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("does not know this device"))
    }

    @Test("ping reaches a paired device listening on the IPv6 loopback, addressed as [::1]:PORT",
          .enabled(if: PairCommandTests.hasIPv6Loopback, "this machine has no IPv6 loopback (::1): ping over IPv6 is skipped"))
    func pingOverIPv6() throws {
        let (desk, laptop) = try Self.pairedVaults()
        let server = try Self.serveDesk(desk, on: "[::1]:0")
        defer { server.stop() }
        #expect(server.address.description.hasPrefix("[::1]:"))
        let pinged = try laptop.run(["peers", "ping", "--peer", try Self.fingerprint(desk), "--address", server.address.description, "--json"])
        #expect(pinged.status == 0, "\(pinged.stderr)")
        let answer = try #require(try PairCommandTests.json(pinged) as? [String: Any])
        #expect(answer["address"] as? String == server.address.description && (answer["replies"] as? [Any])?.count == 1)
    }

    @Test("the peer is --peer; the older positional still works, and both at once are refused")
    func peerIsNamedByOption() throws {
        let (desk, laptop) = try Self.pairedVaults()
        let both = try laptop.run(["peers", "ping", "desk", "--peer", "desk", "--address", "127.0.0.1:9"])
        #expect(both.status == 64 && both.stderr.contains("give the device once, as --peer PEER"), "\(both.stderr)")
        let neither = try laptop.run(["peers", "revoke"])
        #expect(neither.status == 64 && neither.stderr.contains("missing --peer"), "\(neither.stderr)")
        let positional = try desk.run(["peers", "revoke", try Self.fingerprint(laptop)])
        #expect(positional.status == 0 && positional.stdout.contains("Revoked "), "\(positional.stderr)")
    }

    @Test func pingRefusesADeviceThatIsNotTheOnePinned() throws {
        let (desk, laptop) = try Self.pairedVaults()
        let (other, _) = try Self.pairedVaults()
        let server = try Self.serveDesk(other)
        defer { server.stop() }
        let refused = try laptop.run(["peers", "ping", try Self.fingerprint(desk), "--to", server.address.description])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("not the pinned one"))
    }

    @Test func pingNamesAnUnknownPeerAndAnUnreachableOne() throws {
        let (desk, laptop) = try Self.pairedVaults()
        let unknown = try laptop.run(["peers", "ping", "nobody", "--to", "127.0.0.1:9"])
        #expect(unknown.status == 66)
        let unreachable = try laptop.run(["peers", "ping", try Self.fingerprint(desk), "--to", "127.0.0.1:9"])
        #expect(unreachable.status == 74)
        let unannounced = try laptop.run(["peers", "ping", try Self.fingerprint(desk), "--seconds", "1", "--announcements", "127.0.0.1:0"])
        #expect(unannounced.status == 74)
        #expect(unannounced.stderr.contains("did not announce itself"))
    }

    /// An announcement built from SECURITY.md §9.10 by hand (not with the library's encoder).
    static func announcement(deviceID: [UInt8], port: UInt16, name: String) -> [UInt8] {
        Array("SVPA".utf8) + [0x01] + deviceID + [UInt8(port >> 8), UInt8(port & 0xFF), UInt8(name.utf8.count)] + Array(name.utf8)
    }

    /// Sends `datagrams` to 127.0.0.1:`port` every 100 ms until `stop` is signalled.
    static func announce(_ datagrams: [[UInt8]], to port: UInt16, until stop: DispatchSemaphore) {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        repeat {
            for datagram in datagrams {
                _ = datagram.withUnsafeBytes { bytes in
                    withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
            }
        } while stop.wait(timeout: .now() + 0.1) == .timedOut
        close(descriptor)
    }

    @Test func discoverListsEachAnnouncingDeviceOnceAndSaysWhichArePaired() throws {
        let (desk, laptop) = try Self.pairedVaults()
        let deskID = try PairCommandTests.deviceID(desk)
        let deskBytes = stride(from: 0, to: deskID.count, by: 2).map { UInt8(deskID.dropFirst($0).prefix(2), radix: 16)! }
        let port = UInt16.random(in: 40_000...60_000)
        let stop = DispatchSemaphore(value: 0)
        let datagrams = [Self.announcement(deviceID: deskBytes, port: 7421, name: "desk"),
                         Self.announcement(deviceID: [UInt8](repeating: 0xEE, count: 16), port: 7500, name: "stranger"),
                         Array("not an announcement".utf8)]
        Thread.detachNewThread { Self.announce(datagrams, to: port, until: stop) }
        let discovered = try laptop.run(["peers", "discover", "--seconds", "1", "--announcements", "127.0.0.1:\(port)", "--json"], unlock: false)
        stop.signal()
        #expect(discovered.status == 0, "\(discovered.stderr)")
        let heard = try #require(try PairCommandTests.json(discovered) as? [[String: Any]])
        #expect(heard.count == 2)
        let deskEntry = try #require(heard.first { $0["name"] as? String == "desk" })
        #expect(deskEntry["fingerprint"] as? String == (try Self.fingerprint(desk)))
        #expect(deskEntry["address"] as? String == "127.0.0.1:7421")
        #expect(deskEntry["paired"] as? Bool == true)
        #expect(heard.first { $0["name"] as? String == "stranger" }?["paired"] as? Bool == false)
    }
}
