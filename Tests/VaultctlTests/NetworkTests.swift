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
        let desk = try CLIVault(), laptop = try CLIVault()

        // Pairing: the desk shows a code, the laptop types it.
        let host = try hosts.start(.desk, ["pair", "host", "--listen", hosts.address(.desk) + ":0",
                                           "--vault", desk.directory, "--passphrase-file", desk.passphraseFile])
        let (code, pairingAddress) = try Self.codeAndAddress(host)
        try laptop.write(code + "\n", to: laptop.root + "/code")
        let joined = try hosts.run(.laptop, laptop, ["pair", "join", pairingAddress, "--code-file", laptop.root + "/code"])
        host.process.waitUntilExit()
        #expect(joined.status == 0 && host.process.terminationStatus == 0, "\(joined.stderr) \(host.result().stderr)")

        // The channel: the desk's daemon answers the laptop's pings from the other host.
        let daemon = try hosts.start(.desk, ["serve", "--listen", hosts.address(.desk) + ":0",
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
