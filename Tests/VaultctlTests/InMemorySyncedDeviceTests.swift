import Foundation
import Testing
import TestSupport

/// In-memory mode on a device whose projects came by sync (reviewer 20, F20-3; SECURITY.md §19.10):
/// the copy in memory keeps the exchange's tables, whose rows of where each project came from name
/// projects the emptied copy does not read. Those rows were taken as damage: `sync status` said "sync
/// state is damaged", `sync now` (in the command and through `serve`) was refused with 65, so the
/// owner could not read what an own device holds, and the `vaultctl repair` it named failed with a
/// raw SQL error and exit 1. Over the real binary, on loopback.
@Suite(.serialized)
struct InMemorySyncedDeviceTests {
    @Test func aDeviceWhoseProjectsCameBySyncReadsAnOwnDevicesCopyInInMemoryMode() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try PairCommandTests.startHost(desk, ["--address", "127.0.0.1:0", "--trust", "mine"])
        let joined = try PairCommandTests.join(laptop, host.address, code: host.code, extra: ["--trust", "mine"])
        let hosted = host.finish()
        try #require(joined.status == 0 && hosted.status == 0, "\(joined.stderr) \(hosted.stderr)")
        for (arguments, input) in [(["project", "create", "Conf", "--register", "general"], nil), (["doc", "add", "Conf", "D1"], nil),
                                   (["doc", "write", "Conf", "D1"], "The desk's words.\n")] as [([String], String?)] {
            let made = try desk.run(arguments, stdin: input)
            try #require(made.status == 0, "\(arguments): \(made.stderr)")
        }
        let (deskDaemon, deskAddress) = try ServeChannelTests.serve(desk)
        defer { ViewOnlyCommandTests.stop(deskDaemon) }
        let sync = ["sync", "now", "--peer", try PeersCommandTests.fingerprint(desk), "--address", deskAddress]
        let pulled = try laptop.run(sync)
        try #require(pulled.status == 0 && pulled.stdout.contains("Synced 1 project(s)"), "\(pulled.stdout) \(pulled.stderr)")
        try RepairFromDeviceTests.damage(laptop, .droppedTable)
        let before = InMemoryDaemonTests.vaultFiles(laptop)

        // Not "sync state is damaged": the exchange's tables are whole.
        let status = try laptop.run(["sync", "status"])
        #expect(status.status == 0 && status.stderr.contains("in-memory mode"), "\(status.stderr)")
        #expect(!(status.stdout + status.stderr).contains("damaged") && !status.stdout.contains("LOCAL-ONLY"), "\(status.stdout)")
        // Plain repair cannot mend a store that does not open: it names --from (exit 1 and raw SQL, before).
        let repaired = try laptop.run(["repair"])
        #expect(repaired.status == 65, "\(repaired.status) \(repaired.stderr)")
        #expect(repaired.stderr.contains("'vaultctl repair' without --from cannot mend this vault: the writing store cannot be opened")
                && repaired.stderr.contains("'vaultctl repair --from DEVICE'"), "\(repaired.stderr)")
        #expect(!repaired.stderr.contains("SELECT") && !repaired.stderr.contains("database error"), "\(repaired.stderr)")
        // A project the copy does not read is said so, not "no project".
        let unread = try laptop.run(["doc", "show", "Conf", "D1"])
        #expect(unread.status == 66 && unread.stderr.contains("no project 'Conf' is read in in-memory mode ("), "\(unread.stderr)")

        // The way out: read the desk's copy, in the command (65 "sync state is damaged", before) and through a daemon.
        let synced = try laptop.run(sync)
        #expect(synced.status == 0 && synced.stdout.contains("Synced 1 project(s)") && !synced.stdout.contains("received 0"),
                "\(synced.status) \(synced.stdout) \(synced.stderr)")
        let (laptopDaemon, laptopAddress) = try ServeChannelTests.serve(laptop)
        let served = try laptop.run(sync, unlock: false)
        #expect(served.status == 0 && served.stdout.contains("Synced 1 project(s)"), "\(served.status) \(served.stdout) \(served.stderr)")
        let shown = try laptop.run(["doc", "show", "Conf", "D1"], unlock: false)
        #expect(shown.status == 0 && shown.stdout.contains("The desk's words."), "\(shown.status) \(shown.stdout) \(shown.stderr)")
        // The desk asking that daemon hears why it does not answer (its copy sends nothing: what leaves would be recorded
        // only in the copy, §19.10) and the true remedy, not "its sync state there is damaged ... 'vaultctl repair'", as before.
        let asked = try desk.run(["sync", "now", "--peer", try PeersCommandTests.fingerprint(laptop), "--address", laptopAddress], unlock: false)
        #expect(asked.status == 65 && asked.stderr.contains("is refused in in-memory mode (the writing store cannot be opened")
                && asked.stderr.contains("'vaultctl repair --from DEVICE'") && !asked.stderr.contains("damaged"),
                "\(asked.status) \(asked.stdout) \(asked.stderr)")
        ViewOnlyCommandTests.stop(laptopDaemon)
        // Nothing reached the vault's files.
        let after = InMemoryDaemonTests.vaultFiles(laptop)
        let changed = Set(after.keys).symmetricDifference(before.keys).union(before.keys.filter { after[$0] != before[$0] })
        #expect(changed.isEmpty, "in-memory mode changed the vault's files: \(changed.sorted())")
    }
}
