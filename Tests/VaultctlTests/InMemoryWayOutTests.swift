import CryptoVault
import Foundation
import Testing
import TestSupport

/// In-memory mode's way out (reviewer s17, F17-5). A vault whose writing store cannot be opened
/// refused `pair host|join`, though pairing writes only the vault's own tables: a laptop restored
/// with no paired own device could then never reach `repair --from`. And `project list` said "No
/// projects yet" of a vault holding projects it could not read.
@Suite(.serialized)
struct InMemoryWayOutTests {
    @Test func aVaultInInMemoryModePairsOnItselfAndSaysItsProjectsAreNotRead() throws {
        let laptop = try CLIVault(), desk = try CLIVault()
        let created = try laptop.run(["project", "create", "Plain", "--register", "general"])
        try #require(created.status == 0, "\(created.stderr)")
        try RepairFromDeviceTests.damage(laptop, .droppedTable)

        let listed = try laptop.run(["project", "list"])
        #expect(listed.status == 0 && listed.stderr.contains("in-memory mode"), "\(listed.stderr)")
        #expect(!listed.stdout.contains("No projects yet")
                && listed.stdout.contains("1 project(s) of this vault are not read in in-memory mode (")
                && listed.stdout.contains("'vaultctl repair --from DEVICE'"), "\(listed.stdout)")

        let host = try PairCommandTests.startHost(desk)
        let joined = try PairCommandTests.join(laptop, host.address, code: host.code)
        let hosted = host.finish()
        #expect(joined.status == 0 && hosted.status == 0, "\(joined.stderr) \(hosted.stderr)")
        // On the vault itself: a later command, in a process of its own, reads the pairing and its entry.
        #expect(try PairCommandTests.pairedIDs(laptop).count == 1)
        let log = try laptop.run(["audit", "log", "--json", "--action", "peer"])
        #expect(log.stdout.contains("\"peer.pair\""), "\(log.stdout) \(log.stderr)")
        #expect(try laptop.run(["audit", "verify"], unlock: false).status == 0)
        // The store is still damaged, so the way out is open: still in in-memory mode.
        let again = try laptop.run(["project", "list"])
        #expect(again.stderr.contains("in-memory mode") && again.stdout.contains("1 project(s) of this vault are not read"), "\(again.stdout)")
    }

    /// `sync now` run by the CLI itself (no daemon) fills a copy that dies with it: "Synced" alone
    /// claimed what the next command does not show. It says where the records went.
    @Test func aSyncInInMemoryModeSaysItsRecordsAreInThisCommandsCopyOnly() throws {
        let f = try RepairFromDeviceTests.syncedFixture()
        try RepairFromDeviceTests.damage(f.laptop, .droppedTable)
        let synced = try f.hosts.run(.laptop, f.laptop, ["sync", "now", "--peer", f.deskFingerprint, "--address", f.channelAddress])
        #expect(synced.status == 0 && synced.stdout.contains("Synced 1 project(s)"), "\(synced.stdout) \(synced.stderr)")
        #expect(synced.stderr.contains("what this sync received is in this command's copy in memory only and is gone when it ends")
                && synced.stderr.contains("'vaultctl serve'"), "\(synced.stderr)")
        let listed = try f.hosts.run(.laptop, f.laptop, ["project", "list"])
        #expect(listed.stdout.contains("1 project(s) of this vault are not read in in-memory mode"), "\(listed.stdout)")
    }
}
