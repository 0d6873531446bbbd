import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// `vaultctl serve --address`: the daemon serves paired devices over the channel, the same process
/// that holds the owner's sessions.
@Suite(.serialized)
struct ServeChannelTests {
    /// Starts `serve --address 127.0.0.1:0` on `vault` (or with the older spelling `--listen`) and
    /// returns it with the address it chose.
    static func serve(_ vault: CLIVault, _ extra: [String] = [], spelling: String = "--address") throws -> (CLI.Running, String) {
        let running = try CLI.start(["serve", "--vault", vault.directory, "--passphrase-file", vault.passphraseFile,
                                     spelling, "127.0.0.1:0"] + extra)
        return (running, try NetworkTests.channelAddress(running))
    }

    @Test func aPairedDeviceIsAnsweredByTheDaemonAndAStrangerIsNot() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let (daemon, address) = try Self.serve(desk)
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let pinged = try laptop.run(["peers", "ping", try PeersCommandTests.fingerprint(desk), "--to", address, "--count", "2"])
        #expect(pinged.status == 0, "\(pinged.stderr)")
        #expect(pinged.stdout.split(separator: "\n").filter { $0.hasPrefix("Reply from ") }.count == 2)

        // A device paired with another desk, sent to this one, is refused at the handshake.
        let (otherDesk, stranger) = try PeersCommandTests.pairedVaults()
        let refused = try stranger.run(["peers", "ping", try PeersCommandTests.fingerprint(otherDesk), "--to", address])
        #expect(refused.status == 2, "\(refused.stderr)")

        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
        let result = daemon.result()
        #expect(daemon.process.terminationStatus == 0, "\(result.stderr)")
        #expect(result.stderr.contains("connected from 127.0.0.1"), "\(result.stderr)")
    }

    /// F17-18 (reviewer s17): announcing a channel that listens on loopback only told nobody why every
    /// other device's background sync then failed. The daemon says so when it starts.
    @Test func announcingALoopbackChannelIsWarnedAbout() throws {
        let vault = try CLIVault()
        let port = String(Int.random(in: 20_000...29_999))
        let (daemon, _) = try Self.serve(vault, ["--announce", "--announce-port", port])
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
        let result = daemon.result()
        #expect(daemon.process.terminationStatus == 0, "\(result.stderr)")
        #expect(result.stdout.contains("announced on the LAN"), "\(result.stdout)")
        #expect(result.stderr.contains("warning: --announce with a loopback --address (127.0.0.1): your other devices hear this one but cannot connect to it")
                && result.stderr.contains("--address 0.0.0.0:PORT"), "\(result.stderr)")
    }

    @Test func announceWithoutAnAddressIsAUsageError() throws {
        let vault = try CLIVault()
        let result = try vault.run(["serve", "--announce"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--announce needs --address"), "\(result.stderr)")
    }

    @Test func anAnnouncementPortWithoutAnnouncingOrOutOfRangeIsAUsageError() throws {
        let vault = try CLIVault()
        let alone = try vault.run(["serve", "--address", "127.0.0.1:0", "--announce-port", "7500"])
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--announce-port needs --announce"), "\(alone.stderr)")
        let zero = try vault.run(["serve", "--address", "127.0.0.1:0", "--announce", "--announce-port", "0"])
        #expect(zero.status == 64)
        #expect(zero.stderr.contains("--announce-port must be a whole number from 1 to 65535"), "\(zero.stderr)")
    }

    @Test("the older spelling 'serve --listen' still serves the channel; the help shows only --address")
    func olderListenSpellingStillWorks() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let (daemon, address) = try Self.serve(desk, spelling: "--listen")
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let pinged = try laptop.run(["peers", "ping", "--peer", try PeersCommandTests.fingerprint(desk), "--address", address])
        #expect(pinged.status == 0 && pinged.stdout.contains("Reply from "), "\(pinged.stderr)")
        let both = try CLI.run(["serve", "--address", "127.0.0.1:0", "--listen", "127.0.0.1:0", "--vault", desk.directory])
        #expect(both.status == 64 && both.stderr.contains("--address was given twice"), "one option under two spellings: \(both.stderr)")
        for help in [try CLI.run(["serve", "--help"]).stdout, try CLI.run(["help", "serve"]).stdout] {
            #expect(help.contains("--address ADDR:PORT") && !help.contains("--listen"), "\(help)")
        }
    }
}
