import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// `vaultctl repair --from DEVICE` and a project DEVICE does not offer (closing note s10, "Left
/// open"; review 17 s10 on 3c57845): a project made on the laptop and never synced. Before, the
/// rebuild dropped it whole, its words then only in the kept copy, with one line after the fact.
/// Now it is kept as it is here when its rows read whole; when its own rows are the damaged part,
/// the repair names its documents and is refused without --discard-local, and with it says that its
/// words are only in the kept copy, where `doc show --read-only` reads them.
@Suite(.serialized)
struct RepairKeepsUnofferedProjectTests {
    static let diary = "laptoponlydiary"

    /// The fixture's project synced; then a project "Trip" with a document "Diary" made on the
    /// laptop only. Returns the fixture, Trip's id and the Diary's.
    static func laptopWithTrip() throws -> (SyncOverNetworkFixture, ProjectID, NodeID) {
        let f = try SyncOverNetworkFixture()
        let (trip, diary) = try f.edit(f.laptop) { store in
            let project = try store.createProject(named: "Trip", register: .general, kind: .document)
            let node = try store.addNode(.scene, titled: "Diary", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [
                Block(id: try BlockID.random(), kind: .heading(level: 1), text: "Day one"),
                Block(id: try BlockID.random(), kind: .paragraph, text: "The \(Self.diary) words, é ß."),
            ]))
            _ = try store.createProjectSnapshot(of: project.id, titled: "Setting out")
            return (project.id, node.id)
        }
        return (f, trip, diary)
    }

    /// One block of `document` given a position past its CHECK, as a flipped sign bit leaves it: the
    /// project is then damaged (its commands refused until repaired; R15-1).
    static func damageBlock(of document: NodeID, in vault: CLIVault) throws {
        try Database(path: vault.directory + "/vault.db", create: false, readOnly: false).execute("""
            PRAGMA ignore_check_constraints = ON;
            UPDATE writing_blocks SET position = -1 WHERE rowid = (SELECT min(rowid) FROM writing_blocks WHERE node_id = X'\(document.hex)')
            """)
    }

    /// Trip's project version given a number past its CHECK: the damage is Trip's own rows, its
    /// document still reads.
    static func damageVersion(of project: ProjectID, in vault: CLIVault) throws {
        try Database(path: vault.directory + "/vault.db", create: false, readOnly: false).execute("""
            PRAGMA ignore_check_constraints = ON;
            UPDATE writing_project_snapshots SET sequence = -2 WHERE project_id = X'\(project.hex)'
            """)
    }

    static func text(of document: NodeID, in project: ProjectID, _ f: SyncOverNetworkFixture, _ vault: CLIVault) throws -> [String] {
        try f.edit(vault) { store in try store.documentContent(of: document, in: project).blocks.map(\.text) }
    }

    @Test func aProjectTheDeviceDoesNotOfferIsKeptAsItIsHereAndSyncsAfter() throws {
        let (f, trip, diary) = try Self.laptopWithTrip()
        let before = try Self.text(of: diary, in: trip, f, f.laptop)
        // The damage is the synced project's (a block of its document), not Trip's.
        try Self.damageBlock(of: f.document, in: f.laptop)
        let listed = try f.hosts.run(.laptop, f.laptop, ["project", "list"])
        // The synced project's damage alone since R15-1 (before: the whole store in memory).
        #expect(listed.stderr.contains("project \(f.project.hex) is damaged: 1 row(s) of writing_blocks"), "the damage did not show: \(listed.stderr)")

        let repaired = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress])
        try #require(repaired.status == 0, "\(repaired.stderr)")
        #expect(repaired.stdout.contains("Project \(trip.hex) is not on ") && repaired.stdout.contains(": it is kept as it is here."),
                "\(repaired.stdout)")
        #expect(!repaired.stdout.contains("only in the kept copy"), "\(repaired.stdout)")
        #expect(try Self.text(of: diary, in: trip, f, f.laptop) == before, "Trip's words are not kept")
        let shown = try f.hosts.run(.laptop, f.laptop, ["doc", "show", "Trip", "Diary"])
        #expect(shown.status == 0 && shown.stdout.contains(Self.diary) && !shown.stderr.contains("in-memory mode"), "\(shown.stdout) \(shown.stderr)")
        let log = try f.laptop.run(["audit", "log", "--json", "--details", "--action", "sync.repair"])
        #expect(log.stdout.contains("\"kept-here\"") && log.stdout.contains("\"1\""), "\(log.stdout)")
        #expect(try f.laptop.run(["audit", "verify"], unlock: false).status == 0)

        // Kept whole, sync state included: the next sync takes Trip to the desk.
        let synced = try f.sync()
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try Self.text(of: diary, in: trip, f, f.desk) == before, "Trip did not reach the desk after the repair")
    }

    @Test func aProjectTheDeviceDoesNotOfferWhoseOwnRowsAreDamagedIsNamedAndItsWordsReadFromTheKeptCopy() throws {
        let (f, trip, diary) = try Self.laptopWithTrip()
        try Self.damageVersion(of: trip, in: f.laptop)
        let repair = ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress]

        let refused = try f.hosts.run(.laptop, f.laptop, repair)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("'Diary' (\(diary.hex)) of project \(trip.hex), which the device does not hold"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.laptop.directory + "/damaged"), "a refused repair kept a copy")
        #expect(try RepairFromDeviceTests.repairActions(f) == ["sync.repair-refused"])

        let replaced = try f.hosts.run(.laptop, f.laptop, repair + ["--discard-local"])
        try #require(replaced.status == 0, "\(replaced.stderr)")
        #expect(replaced.stdout.contains("Project \(trip.hex) is not on ") && replaced.stdout.contains("its rows here are damaged")
                && replaced.stdout.contains("only in the kept copy") && replaced.stdout.contains("--read-only"), "\(replaced.stdout)")
        let kept = try #require(replaced.stdout.split(separator: "\n").first { $0.hasPrefix("The damaged store is kept in ") }
            .map { String($0.dropFirst("The damaged store is kept in ".count)) }, "\(replaced.stdout)")
        let read = try CLI.run(["doc", "show", "Trip", "Diary", "--vault", kept, "--passphrase-file", f.laptop.passphraseFile, "--read-only"])
        #expect(read.status == 0 && read.stdout.contains(Self.diary), "\(read.stdout) \(read.stderr)")
        // The read is recorded in the live vault's log: which copy, project and document, never a word
        // or a title (closing note s10: it left no entry).
        let log = try f.laptop.run(["audit", "log", "--json", "--details", "--action", "sync.repair-kept-read"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log.stderr)")
        let said = "\(entries)"
        #expect(entries.count == 1 && said.contains(trip.hex) && said.contains(diary.hex) && said.contains("doc show")
                && said.contains((kept as NSString).lastPathComponent), "\(said)")
        #expect(!said.contains(Self.diary) && !said.contains("Diary") && !said.contains("Trip"), "\(said)")
        let gone = try f.hosts.run(.laptop, f.laptop, ["project", "list"])
        #expect(gone.status == 0 && !gone.stdout.contains("Trip") && gone.stdout.contains("Field notes"), "\(gone.stdout) \(gone.stderr)")
        #expect(try f.laptop.run(["audit", "verify"], unlock: false).status == 0)
    }

    /// F17-6 (reviewer s17): Trip's blocks table dropped, so its documents do not read while its words
    /// are still in its sealed records. Before, the repair went ahead without --discard-local, said
    /// "doc show --read-only reads them" and that read failed with a raw SQL text, exit 1. Now it is
    /// refused without --discard-local, naming Trip; with it, the output says no command reads those
    /// words, and `doc show --read-only` of the kept copy is 65 naming the copy, no SQL.
    @Test func aProjectTheDeviceDoesNotOfferWhoseDocumentsDoNotReadIsNamedBeforeItsWordsAreLeftUnread() throws {
        let (f, trip, _) = try Self.laptopWithTrip()
        try Database(path: f.laptop.directory + "/vault.db", create: false, readOnly: false).execute("DROP TABLE writing_blocks")
        let repair = ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress]

        let refused = try f.hosts.run(.laptop, f.laptop, repair)
        #expect(refused.status == 1, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("project \(trip.hex), whose documents do not read here (")
                && refused.stderr.contains("sealed record(s) hold their words") && refused.stderr.contains("--discard-local")
                && refused.stderr.contains("nothing was changed"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.laptop.directory + "/damaged"), "a refused repair kept a copy")
        #expect(try RepairFromDeviceTests.repairActions(f) == ["sync.repair-refused"])

        let dropped = try f.hosts.run(.laptop, f.laptop, repair + ["--discard-local"])
        try #require(dropped.status == 0, "\(dropped.stderr)")
        #expect(dropped.stdout.contains("Project \(trip.hex) is not on ")
                && dropped.stdout.contains("sealed record(s) of words are only in the kept copy, where no command reads them as documents"), "\(dropped.stdout)")
        #expect(!dropped.stdout.contains("'vaultctl doc show' with --read-only reads them"), "\(dropped.stdout)")
        let kept = try #require(dropped.stdout.split(separator: "\n").first { $0.hasPrefix("The damaged store is kept in ") }
            .map { String($0.dropFirst("The damaged store is kept in ".count)) }, "\(dropped.stdout)")
        let read = try CLI.run(["doc", "show", trip.hex, "Diary", "--vault", kept, "--passphrase-file", f.laptop.passphraseFile, "--read-only"])
        #expect(read.status == 65, "\(read.stdout) \(read.stderr)")
        #expect(read.stderr.contains("does not read as a writing store (no such table: writing_blocks)") && !read.stderr.contains("SELECT"),
                "\(read.stderr)")
        #expect(try f.laptop.run(["audit", "verify"], unlock: false).status == 0)
    }
}
