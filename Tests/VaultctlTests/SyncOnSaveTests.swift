import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// A save through the daemon reaches the owner's other device by itself (issue 17, review 17 F11):
/// two real `vaultctl serve --address` daemons, the owner's own devices (network namespaces, or
/// loopback where the machine does not allow them); the laptop's daemon learnt where the desk is
/// from one `sync now` run through it; then a `doc write` through it is shown by the desk's daemon
/// within a bounded wait, and nobody runs `sync now` again.
@Suite(.serialized) struct SyncOnSaveTests {
    static let waitSeconds = 20.0

    @Test func aDocWriteThroughTheDaemonIsShownOnTheOtherDeviceWithoutSyncNow() throws {
        let f = try SyncOverNetworkFixture()
        let laptopDaemon = try f.hosts.start(.laptop, ["serve", "--address", f.hosts.address(.laptop) + ":0",
                                                        "--vault", f.laptop.directory, "--passphrase-file", f.laptop.passphraseFile])
        defer {
            kill(laptopDaemon.process.processIdentifier, SIGTERM)
            _ = laptopDaemon.finish(within: 10)
        }
        _ = try NetworkTests.channelAddress(laptopDaemon)
        // The owner syncs once, through the laptop's daemon: it now knows where the desk answers.
        let synced = try f.laptop.run(f.syncArguments(), unlock: false)
        try #require(synced.status == 0, "\(synced.stderr)")

        let words = "saved on the laptop \(UInt32.random(in: 1...UInt32.max))"
        try f.laptop.write("p0\n\n\(words)\n", to: f.laptop.root + "/day-one.txt")
        let written = try f.laptop.run(["doc", "write", "Field notes", "Day one", f.laptop.root + "/day-one.txt"], unlock: false)
        try #require(written.status == 0, "\(written.stderr)")
        let saved = VaultClock.system.monotonic()
        var shown = ""
        while !shown.contains(words), VaultClock.system.monotonic() - saved < Self.waitSeconds {
            shown = (try? f.desk.run(["doc", "show", "Field notes", "Day one"], unlock: false).stdout) ?? ""
            if !shown.contains(words) { usleep(100_000) }
        }
        let log = String(decoding: FileManager.default.contents(atPath: laptopDaemon.errorPath) ?? Data(), as: UTF8.self)
        #expect(shown.contains(words), "the desk did not show the laptop's save within \(Int(Self.waitSeconds)) s: \(shown); laptop daemon: \(log)")
        #expect(log.contains("background sync: sent"), "the laptop's daemon logged no sync after the save: \(log)")
        print("SyncOnSaveTests: the save was shown on the desk \(String(format: "%.2f", VaultClock.system.monotonic() - saved)) s after 'doc write' returned")
    }
}
