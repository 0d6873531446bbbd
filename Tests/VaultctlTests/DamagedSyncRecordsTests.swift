import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// One flipped bit in a clear column of `sync_records` (review 17 s9, N-s9-6). F18 sent the whole
/// writing store to the in-memory mode for it: the laptop showed no project, `repair` found nothing
/// to mend, and `repair --from` replaced the laptop's unsynced words with the desk's, leaving them
/// only in a kept copy no command could read. Now the vault opens as ever with that one project
/// local-only (and says so), `repair` mends the row from the sealed record it names, `repair --from`
/// names what it would replace and is refused without --discard-local, and a kept copy's document is
/// read without opening the copy's files.
@Suite(.serialized)
struct DamagedSyncRecordsTests {
    static let unsynced = "laptopunsynced"

    /// The fixture's project synced; then the laptop's document gets words the desk never saw, and
    /// one of the laptop's stored records a counter of -5 (past the table's CHECK, as a flipped sign
    /// bit leaves it).
    static func damagedLaptop() throws -> SyncOverNetworkFixture {
        let f = try SyncOverNetworkFixture()
        try f.type(unsynced, into: 1, on: f.laptop)
        try RepairFromDeviceTests.damage(f.laptop, .negativeRecordCounter)
        return f
    }

    static func show(_ f: SyncOverNetworkFixture) throws -> CLI.Result {
        try f.hosts.run(.laptop, f.laptop, ["doc", "show", "Field notes", "Day one"])
    }

    @Test func theLaptopsWordsStayReadableRepairMendsTheRowAndTheProjectSyncsAgain() throws {
        let f = try Self.damagedLaptop()

        // The vault opens as ever: the document with the unsynced words, no in-memory mode, and a
        // notice naming the project and what mends it.
        let shown = try Self.show(f)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains(Self.unsynced), "\(shown.stdout)")
        #expect(!shown.stderr.contains("in-memory mode"), "\(shown.stderr)")
        #expect(shown.stderr.contains("the sync state of project \(f.project.hex) is damaged: a stored record's counter is -5 (1 row(s) of sync_records hold a value no writer stores)")
                && shown.stderr.contains("'vaultctl repair' mends it"), "\(shown.stderr)")
        let status = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        #expect(status["in_memory"] == nil, "\(status)")
        let projects = try #require(status["projects"] as? [[String: Any]], "\(status)")
        #expect(projects.contains { $0["project"] as? String == f.project.hex && $0["state"] as? String == "local-only"
                                    && ($0["reason"] as? String)?.contains("1 row(s) of sync_records") == true }, "\(projects)")

        // `repair` finds the row and writes it again from the record it names.
        let mended = try f.hosts.run(.laptop, f.laptop, ["repair"])
        #expect(mended.status == 0, "\(mended.stderr)")
        #expect(mended.stdout.contains("Mended 1 damaged row(s) of sync_records of project \(f.project.hex) from the records they name"), "\(mended.stdout)")
        #expect(!mended.stdout.contains("nothing to mend"), "\(mended.stdout)")
        let log = try f.laptop.run(["audit", "log", "--json", "--details", "--action", "sync.records-mended"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log.stderr)")
        #expect(entries.count == 1 && "\(entries)".contains("mended") , "\(entries)")
        try RepairFromDeviceTests.requireReady(f)
        let again = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["repair", "--json"]))
        #expect(again["mended"] as? Bool == false, "\(again)")

        // The project syncs again: the laptop's words reach the desk, and the desk's come back.
        try f.type("deskafter", into: 2, on: f.desk)
        let synced = try f.sync()
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try f.state(f.desk).text.joined(separator: " ").contains(Self.unsynced))
        #expect(try f.state(f.laptop).text.joined(separator: " ").contains("deskafter"))
        #expect(try f.laptop.run(["audit", "verify"], unlock: false).status == 0)
        try f.checkVaults("after the mend")
    }

    @Test func repairFromNamesTheDocumentItWouldReplaceRefusesWithoutDiscardLocalAndTheKeptCopyReadsItBack() throws {
        let f = try Self.damagedLaptop()
        let repair = ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress]

        let refused = try f.hosts.run(.laptop, f.laptop, repair)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("1 document(s) here hold words that device does not"), "\(refused.stderr)")
        #expect(refused.stderr.contains("'Day one' (\(f.document.hex)) of project \(f.project.hex)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--discard-local"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.laptop.directory + "/damaged"), "a refused repair kept a copy")
        #expect(try RepairFromDeviceTests.repairActions(f) == ["sync.repair-refused"])
        #expect(try Self.show(f).stdout.contains(Self.unsynced), "the refused repair changed the document")

        let replaced = try f.hosts.run(.laptop, f.laptop, repair + ["--discard-local", "--json"])
        try #require(replaced.status == 0, "\(replaced.stderr)")
        let report = try RepairCommandTests.json(replaced)
        let kept = try #require(report["kept"] as? String)
        let named = try #require(report["replaced_here"] as? [[String: Any]], "\(report)")
        #expect(named.count == 1 && named.first?["document"] as? String == f.document.hex, "\(named)")
        #expect(try !Self.show(f).stdout.contains(Self.unsynced), "the document was not replaced")

        // The kept copy's document, read without opening the copy: its files stay as they were.
        let before = InMemoryModeTests.tree(kept)
        let keptShow = ["doc", "show", "Field notes", "Day one", "--vault", kept, "--passphrase-file", f.laptop.passphraseFile]
        let unread = try CLI.run(keptShow)
        #expect(unread.status == 1 && unread.stderr.contains("is a copy 'vaultctl repair' kept for inspection"), "\(unread.stderr)")
        let read = try CLI.run(keptShow + ["--read-only"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout.contains(Self.unsynced), "\(read.stdout)")
        #expect(InMemoryModeTests.tree(kept) == before, "reading the kept copy changed it")
        let notKept = try f.hosts.run(.laptop, f.laptop, ["doc", "show", "Field notes", "Day one", "--read-only"])
        #expect(notKept.status == 64 && notKept.stderr.contains("is not one"), "\(notKept.stderr)")
    }
}
