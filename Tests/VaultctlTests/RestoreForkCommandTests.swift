import Foundation
import Testing
import TestSupport

/// Reviewer 12's N-s12-3 (rb6): three own devices; the laptop's record made after its backup reached
/// the tablet only. Restored, the laptop syncs with the desk; the restore's wait still names the
/// tablet (session 14), and the owner lifts it anyway (`repair --write-anyway`), writes, and signs
/// its record 2 again with other words. On main both
/// sides then refused each other for good (exit 75 at every sync, the tablet and the laptop showing
/// different text). Under SECURITY.md §19.4's fork rule the first meeting names the fork (exit 75),
/// both keep the same history, the next sync exits 0, every device shows the same text, and the words
/// of the history that left are in a sync-conflict branch: no word is lost.
@Suite(.serialized)
struct RestoreForkCommandTests {
    @Test func aRestoredLaptopWhoseLaterRecordOnlyTheTabletHeldConvergesWithItAndLosesNoWord() throws {
        let desk = try CLIVault(), laptop = try CLIVault(), tablet = try CLIVault()
        try RestoredOwnRecordsCommandTests.pair(desk, laptop)
        try RestoredOwnRecordsCommandTests.pair(tablet, laptop)
        try ForkedColleagueCommandTests.run(laptop, ["project", "create", "Memo", "--register", "general"])
        try ForkedColleagueCommandTests.run(laptop, ["doc", "add", "Memo", "Draft"])
        try ForkedColleagueCommandTests.run(laptop, ["doc", "write", "Memo", "Draft"], stdin: "First paragraph.\n")
        try ForkedColleagueCommandTests.synced(laptop, with: desk)
        try ForkedColleagueCommandTests.synced(laptop, with: tablet)
        let backup = laptop.root + "/laptop.backup"
        try ForkedColleagueCommandTests.run(laptop, ["backup", "-o", backup])
        try ForkedColleagueCommandTests.run(laptop, ["doc", "write", "Memo", "Draft"], stdin: "First paragraph.\n\nSecond, after the backup.\n")
        try ForkedColleagueCommandTests.synced(laptop, with: tablet)

        let restored = try CLIVault(create: false)
        let output = try CLI.run(["restore-backup", backup, "--into", restored.directory, "--passphrase-file", restored.passphraseFile])
        try #require(output.status == 0, "\(output.stdout) \(output.stderr)")
        try RestoredOwnRecordsCommandTests.confirm(desk, on: restored)
        try RestoredOwnRecordsCommandTests.confirm(tablet, on: restored)
        try ForkedColleagueCommandTests.synced(restored, with: desk)
        // The restore's wait now holds until the tablet too has been met (N-s12-3 by prevention): the
        // fork below comes only from the owner overriding it.
        let waiting = try restored.run(["doc", "write", "Memo", "Draft"], stdin: RestoredOwnRecordsCommandTests.restoredWords)
        #expect(waiting.status == 77 && waiting.stderr.contains("repair --write-anyway"), "\(waiting.status): \(waiting.stderr)")
        try ForkedColleagueCommandTests.run(restored, ["repair", "--write-anyway", "Memo"])
        try ForkedColleagueCommandTests.run(restored, ["doc", "write", "Memo", "Draft"], stdin: RestoredOwnRecordsCommandTests.restoredWords)

        let met = try SyncNotInSyncCommandTests.sync(restored, with: tablet)
        #expect(met.status == 75 && met.stderr.contains("signed two histories"), "\(met.status): \(met.stdout) \(met.stderr)")
        let again = try SyncNotInSyncCommandTests.sync(restored, with: tablet)
        #expect(again.status == 0, "\(again.status): \(again.stdout) \(again.stderr)")
        let toDesk = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        #expect(toDesk.status == 0, "\(toDesk.status): \(toDesk.stdout) \(toDesk.stderr)")

        let shown = try [restored, tablet, desk].map { try $0.run(["doc", "show", "Memo", "Draft"]).stdout }
        #expect(shown[0] == shown[1] && shown[1] == shown[2], "restored: \(shown[0]) tablet: \(shown[1]) desk: \(shown[2])")
        #expect(shown[0].contains("Second, after the backup.") != shown[0].contains("Written on the restored laptop."), "one history: \(shown[0])")
        for (name, vault) in [("restored laptop", restored), ("tablet", tablet), ("desk", desk)] {
            let words = try ForkedColleagueCommandTests.everyWord(vault, "Memo", "Draft")
            for word in ["First paragraph.", "Second, after the backup.", "Written on the restored laptop."] {
                #expect(words.contains(word), "\(name): \(word) is lost: \(words)")
            }
        }
    }
}
