import Foundation
import Testing
import TestSupport

/// A vault folder copied to a second machine (reviewer 17, F17-15): the copy signs with the same
/// device identity, so the desk meets a fork of the laptop's device when both sync with it (named:
/// exit 75, the copy's words in a branch). Before, the desk's next commit then sent the snapshot the
/// copy had made (its record left out, its version still in the desk's store) as one of the desk's
/// own, naming the laptop's audit device: the ORIGINAL laptop refused that record
/// (`attributionMismatch`) at every later `sync now` (exit 75) and `sync status` said NOT IN SYNC for
/// good. Now a commit sends only the versions its own device made (SECURITY.md §19.4): the original
/// laptop and the desk converge and say so; only the copy's history is left out.
@Suite(.serialized)
struct CopiedVaultFolderTests {
    @Test func theOriginalOfACopiedVaultFolderAndItsDeskSyncAgainOnceTheForkIsNamed() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        try ForkedColleagueCommandTests.pair(desk, laptop, trust: "mine")
        try ForkedColleagueCommandTests.run(desk, ["project", "create", "P1", "--register", "general"])
        try ForkedColleagueCommandTests.run(desk, ["doc", "add", "P1", "D1"])
        try ForkedColleagueCommandTests.run(desk, ["doc", "write", "P1", "D1"], stdin: "Shared first words.\n")
        try ForkedColleagueCommandTests.synced(laptop, with: desk)

        // The laptop's folder is copied as it is (same device identity), and each writes other words.
        let copy = try CLIVault(create: false)
        try FileManager.default.copyItem(atPath: laptop.directory, toPath: copy.directory)
        try ForkedColleagueCommandTests.run(laptop, ["doc", "write", "P1", "D1"], stdin: "Shared first words.\n\nOriginal laptop words.\n")
        try ForkedColleagueCommandTests.run(copy, ["doc", "write", "P1", "D1"], stdin: "Shared first words.\n\nCopied folder words.\n")
        // Each keeps a version of its own (a snapshot names its maker's audit device, §19.2 0x06):
        // whichever copy the fork rule leaves out, its snapshot stays in the desk's store.
        try ForkedColleagueCommandTests.run(laptop, ["snapshot", "create", "P1", "D1", "--title", "original"])
        try ForkedColleagueCommandTests.run(copy, ["snapshot", "create", "P1", "D1", "--title", "copy"])
        try ForkedColleagueCommandTests.synced(laptop, with: desk)
        let met = try SyncNotInSyncCommandTests.sync(copy, with: desk)
        let laptopID = try PeersCommandTests.fingerprint(laptop)
        #expect(met.status == 75 && met.stderr.contains("device \(laptopID) signed two histories of it"), "\(met.status): \(met.stdout) \(met.stderr)")

        // The desk writes after the fork (its next commit carries its versions), and the original syncs
        // with it: its first run meets the fork itself (named, exit 75); every later run syncs (before:
        // exit 75, `attributionMismatch`, every run).
        for run in 1...3 {
            try ForkedColleagueCommandTests.append("Desk line \(run).", on: desk, "P1", "D1")
            let again = try SyncNotInSyncCommandTests.sync(laptop, with: desk)
            #expect(!again.stderr.contains("attributionMismatch"), "run \(run): \(again.status): \(again.stdout) \(again.stderr)")
            if run == 1, again.status == 75 {
                #expect(again.stderr.contains("device \(laptopID) signed two histories of it"), "\(again.stderr)")
            } else {
                #expect(again.status == 0, "run \(run): \(again.status): \(again.stdout) \(again.stderr)")
            }
        }
        let status = try laptop.run(["sync", "status"])
        #expect(status.status == 0 && !status.stdout.contains("NOT IN SYNC") && !status.stdout.contains("attributionMismatch"), "\(status.stdout)")
        let refused = try laptop.run(["audit", "log", "--action", "sync", "--details"]).stdout
        #expect(!refused.contains("attributionMismatch"), "\(refused)")
        let deskText = try desk.run(["doc", "show", "P1", "D1"]).stdout, laptopText = try laptop.run(["doc", "show", "P1", "D1"]).stdout
        #expect(deskText == laptopText && deskText.contains("Shared first words.") && deskText.contains("Desk line 3."),
                "desk: \(deskText) laptop: \(laptopText)")
        // No word is lost: the history that left is in a sync-conflict branch on both.
        for (name, vault) in [("desk", desk), ("laptop", laptop)] {
            let words = try ForkedColleagueCommandTests.everyWord(vault, "P1", "D1")
            #expect(words.contains("Original laptop words.") && words.contains("Copied folder words."), "\(name): \(words)")
        }
    }
}
