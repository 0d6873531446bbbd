import Foundation
import Testing
import TestSupport

/// Concurrent syncs of one vault with one own device (reviewer 17, F17-17): three `vaultctl sync now`
/// at once against the desk while both save edits. Before, overlapping exchanges pulled and pushed
/// the same records, and the side taking one second refused it as a replay: `sync.record-refused`
/// with reason `replayedRecord` and `sync.push-refused` in both vaults' logs, the hostile-peer reason,
/// for a race between the owner's own exchanges. Now the exchanges of one vault with one peer take
/// turns (SECURITY.md §19.9, `SyncExchangeLock`): every run ends 0, nothing is refused or audited as
/// refused, and both devices end with the same text.
@Suite(.serialized)
struct ConcurrentOwnSyncTests {
    @Test func threeSyncNowAtOnceWithOneOwnDeviceRefuseNothingAndLogNoReplay() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        try ForkedColleagueCommandTests.pair(desk, laptop, trust: "mine")
        try ForkedColleagueCommandTests.run(desk, ["project", "create", "Book", "--register", "general"])
        try ForkedColleagueCommandTests.run(desk, ["doc", "add", "Book", "Ch1"])
        try ForkedColleagueCommandTests.run(desk, ["doc", "add", "Book", "Ch2"])
        try ForkedColleagueCommandTests.run(desk, ["doc", "write", "Book", "Ch1"], stdin: "Desk words.\n")
        try ForkedColleagueCommandTests.run(desk, ["doc", "write", "Book", "Ch2"], stdin: "Laptop words.\n")
        try ForkedColleagueCommandTests.synced(laptop, with: desk)

        let deskID = try PeersCommandTests.fingerprint(desk)
        for round in 1...3 {
            // Both save an edit (each in its own document), then three runs start at once.
            try ForkedColleagueCommandTests.append("Desk round \(round).", on: desk, "Book", "Ch1")
            try ForkedColleagueCommandTests.append("Laptop round \(round).", on: laptop, "Book", "Ch2")
            let (daemon, address) = try ServeChannelTests.serve(desk)
            let started = Date()
            let runs = try (1...3).map { _ in
                try CLI.start(["sync", "now", "--peer", deskID, "--address", address, "--vault", laptop.directory,
                               "--passphrase-file", laptop.passphraseFile])
            }
            let results = runs.map { run in run.process.waitUntilExit(); return run.result() }
            SyncNotInSyncCommandTests.stop(daemon)
            #expect(Date().timeIntervalSince(started) < 120, "round \(round): the runs took \(Date().timeIntervalSince(started)) s")
            for result in results {
                #expect(result.status == 0 && !result.stdout.contains("refused") && !result.stderr.contains("refused"),
                        "round \(round): \(result.status): \(result.stdout) \(result.stderr)")
            }
        }
        for (name, vault) in [("desk", desk), ("laptop", laptop)] {
            let log = try vault.run(["audit", "log", "--action", "sync", "--details"]).stdout
            #expect(!log.contains("replayedRecord") && !log.contains("sync.record-refused") && !log.contains("sync.push-refused"), "\(name): \(log)")
        }
        let deskText = try desk.run(["doc", "show", "Book", "Ch2"]).stdout, laptopText = try laptop.run(["doc", "show", "Book", "Ch1"]).stdout
        #expect(deskText.contains("Laptop round 3.") && laptopText.contains("Desk round 3."), "desk: \(deskText) laptop: \(laptopText)")
    }
}
