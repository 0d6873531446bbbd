import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// It always launches, through the daemon too (issue 17, SECURITY.md §19.10): `vaultctl serve` on a
/// vault whose writing store cannot be opened starts, works on a copy in memory, and every command
/// it runs for a client says so (stderr, and `in_memory` in a JSON object); what a sync from an own
/// device writes stays in the daemon's copy, a change is refused, and the vault's files are byte
/// for byte as they were when the daemon stops.
@Suite(.serialized)
struct InMemoryDaemonTests {
    static let notice = "vaultctl: in-memory mode: the writing store of "

    /// The vault's files, without the daemon's own (its socket, its lock and log files), which a
    /// daemon of a healthy vault makes as well.
    static func vaultFiles(_ vault: CLIVault) -> [String: Data] {
        InMemoryModeTests.tree(vault.directory).filter { !$0.key.hasPrefix("daemon") }
    }

    @Test func aDaemonOnAVaultWhoseWritingStoreCannotBeOpenedServesInMemoryAndWritesNothing() throws {
        let f = try RepairFromDeviceTests.syncedFixture()
        let expected = try RepairFromDeviceTests.contents(f, f.desk)
        try RepairFromDeviceTests.damage(f.laptop, .droppedTable)
        let before = Self.vaultFiles(f.laptop)

        let daemon = try f.hosts.start(.laptop, ["serve", "--vault", f.laptop.directory, "--passphrase-file", f.laptop.passphraseFile])
        defer { if daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) } }
        try DaemonCommandTests.Fixture.waitForListening(daemon)
        let started = String(decoding: FileManager.default.contents(atPath: daemon.errorPath) ?? Data(), as: UTF8.self)
        #expect(started.contains(Self.notice) && started.contains("the table writing_blocks is missing"), "\(started)")

        // Each command below runs in the daemon (no passphrase given here) and says where it works.
        let client = { (arguments: [String]) throws -> CLI.Result in try f.laptop.run(arguments, unlock: false) }
        let listed = try client(["project", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stderr.contains(Self.notice) && listed.stderr.contains("the daemon serving it works on a copy in memory"), "\(listed.stderr)")
        #expect(!listed.stdout.contains("Field notes"), "the damaged store's projects are not read: \(listed.stdout)")
        // Sync from the desk through the daemon fills its copy: the project is read from there.
        let synced = try client(["sync", "now", "--peer", f.deskFingerprint, "--address", f.channelAddress])
        #expect(synced.status == 0 && synced.stderr.contains(Self.notice), "\(synced.stderr)")
        #expect(synced.stdout.contains("Synced 1 project(s)") && !synced.stdout.contains("received 0"), "\(synced.stdout)")
        // A write is refused, in the client and in the daemon alike (it would be lost with the copy).
        let created = try client(["project", "create", "Scratch", "--register", "fiction", "--json"])
        #expect(created.status == 65 && created.stderr.contains("'project create' is refused in in-memory mode"), "\(created.stderr)")
        let after = try client(["project", "list"])
        #expect(after.stdout.contains("Field notes") && !after.stdout.contains("Scratch"), "\(after.stdout)")
        let status = try RepairCommandTests.json(try client(["sync", "status", "--json"]))
        #expect(status["in_memory"] is String, "\(status)")
        // What must be of the vault itself is refused there too.
        let backup = try client(["backup", "-o", f.laptop.root + "/copy.vaultbackup"])
        #expect(backup.status == 65 && backup.stderr.contains("'backup' is refused in in-memory mode"), "\(backup.stderr)")

        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
        let after_ = Self.vaultFiles(f.laptop)
        let changed = Set(after_.keys).symmetricDifference(before.keys).union(before.keys.filter { after_[$0] != before[$0] })
        #expect(changed.isEmpty, "the daemon in in-memory mode changed the vault's files: \(changed.sorted())")
        #expect(try RepairFromDeviceTests.contents(f, f.desk) == expected, "the in-memory sync changed the desk")
        // Nothing of it reached the vault: once repaired, the scratch project is not there.
        let repaired = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        let projects = try f.laptop.run(["project", "list"])
        #expect(projects.stdout.contains("Field notes") && !projects.stdout.contains("Scratch"), "\(projects.stdout)")
    }
}
