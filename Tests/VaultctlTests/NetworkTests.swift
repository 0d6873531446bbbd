import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Pairing and the channel across a real network where the machine allows it: two network
/// namespaces joined by a veth pair (as root, with iproute2), else loopback (the test says which).
@Suite(.serialized)
struct NetworkTests {
    @Test func pairingAndTheChannelWorkBetweenTwoHosts() throws {
        let hosts = TwoHosts()
        print("NetworkTests: running over \(hosts.description)")
        let (desk, laptop) = try Self.pair(hosts)

        // The channel: the desk's daemon answers the laptop's pings from the other host.
        let daemon = try hosts.start(.desk, ["serve", "--address", hosts.address(.desk) + ":0",
                                             "--vault", desk.directory, "--passphrase-file", desk.passphraseFile])
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let channelAddress = try Self.channelAddress(daemon)
        #expect(channelAddress.hasPrefix(hosts.address(.desk) + ":"))
        let deskID = try PeersCommandTests.fingerprint(desk)
        let pinged = try hosts.run(.laptop, laptop, ["peers", "ping", deskID, "--to", channelAddress, "--count", "3"])
        #expect(pinged.status == 0, "\(pinged.stderr)")
        #expect(pinged.stdout.contains("Reply from"))
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
        #expect(daemon.result().stderr.contains("connected from \(hosts.address(.laptop))"))
    }

    @Test func replicationAndRestoreWorkBetweenTwoHosts() throws {
        let hosts = TwoHosts()
        print("NetworkTests: replication over \(hosts.description)")
        let (desk, laptop) = try Self.pair(hosts)
        let bundleID = try ReplicationCommandTests.laptopWithAFile(laptop, contents: "case file, page 1\n")
        let daemon = try hosts.start(.desk, ["serve", "--address", hosts.address(.desk) + ":0",
                                             "--vault", desk.directory, "--passphrase-file", desk.passphraseFile])
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let channelAddress = try Self.channelAddress(daemon)
        let deskID = try PeersCommandTests.fingerprint(desk)
        let sent = try hosts.run(.laptop, laptop, ["replicate", "--to", deskID, "--address", channelAddress])
        #expect(sent.status == 0 && sent.stdout.contains("Sent 1 bundle(s)"), "\(sent.stdout) \(sent.stderr)")
        unlink(laptop.directory + "/assets/\(bundleID).vbundle")
        let restored = try hosts.run(.laptop, laptop, ["restore", "--from", deskID, "--address", channelAddress])
        #expect(restored.status == 0 && restored.stdout.contains("restored  \(bundleID)"), "\(restored.stdout) \(restored.stderr)")
    }

    @Test func witnessingWorksBetweenTwoHosts() throws {
        let hosts = TwoHosts()
        print("NetworkTests: witnessing over \(hosts.description)")
        let (desk, laptop) = try Self.pair(hosts)

        // The desk's daemon witnesses the laptop's log, asked from the other host.
        let daemon = try hosts.start(.desk, ["serve", "--address", hosts.address(.desk) + ":0",
                                             "--vault", desk.directory, "--passphrase-file", desk.passphraseFile])
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let channelAddress = try Self.channelAddress(daemon)
        let deskID = try PeersCommandTests.fingerprint(desk)
        let witnessed = try hosts.run(.laptop, laptop, ["audit", "witness", "--peer", deskID, "--address", channelAddress])
        #expect(witnessed.status == 0, "\(witnessed.stderr)")
        #expect(witnessed.stdout.contains("(\(deskID)) cosigned the checkpoint of "), "\(witnessed.stdout)")
        let verified = try laptop.run(["audit", "verify", "--json"], unlock: false)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(verified.stdout.utf8)) as? [String: Any])
        #expect((report["witnesses"] as? [[String: Any]])?.map { $0["fingerprint"] as? String } == [deskID], "\(verified.stdout)")
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
    }

    /// Two vaults paired across the hosts: the desk shows a code, the laptop types it.
    static func pair(_ hosts: TwoHosts) throws -> (desk: CLIVault, laptop: CLIVault) {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try hosts.start(.desk, ["pair", "host", "--address", hosts.address(.desk) + ":0",
                                           "--vault", desk.directory, "--passphrase-file", desk.passphraseFile])
        let (code, pairingAddress) = try codeAndAddress(host)
        try laptop.write(code + "\n", to: laptop.root + "/code")
        let joined = try hosts.run(.laptop, laptop, ["pair", "join", pairingAddress, "--code-file", laptop.root + "/code"])
        host.process.waitUntilExit()
        try #require(joined.status == 0 && host.process.terminationStatus == 0, "\(joined.stderr) \(host.result().stderr)")
        return (desk, laptop)
    }

    static func codeAndAddress(_ host: CLI.Running) throws -> (String, String) {
        for _ in 0..<400 {
            let lines = String(decoding: FileManager.default.contents(atPath: host.outputPath) ?? Data(), as: UTF8.self).split(separator: "\n")
            if let code = lines.first(where: { $0.hasPrefix("Pairing code: ") })?.dropFirst(14),
               let listening = lines.first(where: { $0.hasPrefix("Listening on ") }),
               let address = listening.dropFirst(13).split(separator: ";").first {
                return (String(code), String(address))
            }
            guard host.process.isRunning else { break }
            usleep(50_000)
        }
        throw CLIError(message: "pair host printed no code: \(host.result().stderr)")
    }

    static func channelAddress(_ daemon: CLI.Running) throws -> String {
        try DaemonCommandTests.Fixture.waitForListening(daemon)
        let output = String(decoding: FileManager.default.contents(atPath: daemon.outputPath) ?? Data(), as: UTF8.self)
        guard let line = output.split(separator: "\n").first(where: { $0.contains("channel for paired devices on ") }) else {
            throw CLIError(message: "serve printed no channel address: \(output)")
        }
        return String(line.split(separator: " ").last ?? "")
    }
}
