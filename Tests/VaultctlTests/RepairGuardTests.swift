import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Sync
import Testing
import TestSupport
import Writing

/// What `vaultctl repair --from DEVICE` refuses (issue 17, SECURITY.md §19.10): to run under a
/// `vaultctl serve` of the same vault (it would rebuild the store the daemon writes), and a device
/// that serves another history than this vault's audit log recorded (`auditMismatch`), named.
@Suite(.serialized)
struct RepairGuardTests {
    @Test func aRepairWhileServeHoldsTheVaultIsRefusedAndChangesNothingThenRunsOnceItStops() throws {
        let f = try RepairFromDeviceTests.syncedFixture()
        let expected = try RepairFromDeviceTests.contents(f, f.desk)
        try RepairFromDeviceTests.damage(f.laptop, .droppedTable)
        let daemon = try f.hosts.start(.laptop, ["serve", "--vault", f.laptop.directory, "--passphrase-file", f.laptop.passphraseFile])
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        try DaemonCommandTests.Fixture.waitForListening(daemon)
        let before = InMemoryDaemonTests.vaultFiles(f.laptop)

        let refused = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress])
        #expect(refused.status == 73, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("'vaultctl serve' is running on this vault") && refused.stderr.contains("nothing was changed")
                && refused.stderr.contains("vaultctl serve --stop"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.laptop.directory + "/damaged"), "nothing was kept aside: nothing was started")
        #expect(InMemoryDaemonTests.vaultFiles(f.laptop) == before, "the refused repair changed the vault's files")
        #expect(daemon.process.isRunning, "the daemon goes on")

        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
        let repaired = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(try RepairFromDeviceTests.contents(f, f.laptop) == expected)
        #expect(try RepairFromDeviceTests.repairActions(f) == ["sync.repair-kept", "sync.repair-reset", "sync.repair"])
    }

    /// The lock is the vault's, not the socket's: a serve listening on a socket outside the vault
    /// folder, or a repair naming the vault through a symbolic link, still meet it; and a second serve
    /// of the vault on another socket is refused as well.
    @Test func aServeOnAnySocketHoldsTheVaultAgainstARepairByAnyPathAndAnotherServe() throws {
        let vault = try CLIVault()
        let socket = vault.root + "/elsewhere.sock", link = vault.root + "/through-a-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: vault.directory)
        let daemon = try CLI.start(["serve", "--vault", vault.directory, "--passphrase-file", vault.passphraseFile, "--socket", socket])
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        try DaemonCommandTests.Fixture.waitForListening(daemon)

        for path in [vault.directory, link] {
            let refused = try CLI.run(["repair", "--from", "desk", "--address", "127.0.0.1:9", "--vault", path, "--passphrase-file", vault.passphraseFile])
            #expect(refused.status == 73 && refused.stderr.contains("'vaultctl serve' is running on this vault"), "\(path): \(refused.stderr)")
        }
        let second = try CLI.run(["serve", "--vault", link, "--passphrase-file", vault.passphraseFile, "--socket", vault.root + "/another.sock"])
        #expect(second.status == 73 && second.stderr.contains("holds this vault"), "\(second.status) \(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: vault.root + "/another.sock"), "the second serve never listened")

        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
        // Stopped: the repair gets past the lock, to the next thing it checks (no paired device 'desk').
        let after = try CLI.run(["repair", "--from", "desk", "--address", "127.0.0.1:9", "--vault", link, "--passphrase-file", vault.passphraseFile])
        #expect(after.status == 66 && after.stderr.contains("desk"), "\(after.status) \(after.stderr)")
    }

    /// Commits the laptop's edits as its next change record, in this process (no peer hears of it):
    /// its `sync.record-commit` entry names the record's hash.
    static func commitHere(_ f: SyncOverNetworkFixture) throws {
        let unlocked = try SyncOverNetworkFixture.open(f.laptop)
        defer { try? unlocked.vault.finishCommand() }
        let keys = try unlocked.deviceKeys()
        var devices = [keys.profile.deviceID: keys.profile.signingPublicKey]
        for pairing in try unlocked.vault.familyPairings() { devices[pairing.peer.deviceID] = pairing.peer.signingPublicKey }
        let committed = try unlocked.transaction { tx in
            try VaultSync(WritingStore(tx), author: SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey), devices: devices)
                .commitLocalChanges(in: f.project)
        }
        try #require(committed != nil, "nothing was committed")
    }

    @Test func aDeviceServingAnotherRecordThanTheAuditLogRecordedIsRefusedNamedAndNothingChanges() throws {
        let f = try RepairFromDeviceTests.syncedFixture()
        // A copy of the laptop (its keys too) signs its next record with other words and gives it to
        // the desk; the laptop itself commits its own next record, the same counter, and keeps it.
        let clone = try CLIVault(create: false)
        try FileManager.default.copyItem(atPath: f.laptop.directory, toPath: clone.directory)
        try f.type("words of the copy", into: 1, on: clone)
        let fromClone = try f.hosts.run(.laptop, clone, f.syncArguments())
        try #require(fromClone.status == 0, "\(fromClone.stderr)")
        try f.type("words of the laptop", into: 1, on: f.laptop)
        try Self.commitHere(f)

        let refused = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress])
        #expect(refused.status == 65, "\(refused.status) \(refused.stderr)")
        let laptopDevice = try PairCommandTests.deviceID(f.laptop)
        #expect(refused.stderr.contains("project \(f.project!)") && refused.stderr.contains("with another hash than this vault's audit log recorded")
                && refused.stderr.contains("of device \(laptopDevice)") && refused.stderr.contains("nothing was changed"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.laptop.directory + "/damaged"))
        #expect(try RepairFromDeviceTests.repairActions(f) == ["sync.repair-refused"])
        let log = try f.laptop.run(["audit", "log", "--json", "--action", "sync.repair-refused"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log.stderr)")
        let reason = try #require((entries.last?["detail_hashes"] as? [String: Any])?["reason"] as? String, "\(entries)")
        let hashed = try f.laptop.run(["audit", "hash", "--field", "reason"], stdin: "auditMismatch\n")
        #expect(reason == hashed.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "the refusal's reason is auditMismatch")
        // The laptop's own words are still in its document: nothing was rebuilt.
        #expect(try f.state(f.laptop).text[1].contains("words of the laptop"))
    }
}
