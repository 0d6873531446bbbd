import Foundation
import Testing
import TestSupport

/// A restored vault's project waits, view-only, for a completed pull from EVERY device that may hold
/// this device's records of it made after the backup (SECURITY.md §19.10), not only the first own
/// device's: each own device the backup trusted (review 17 s12, N-s12-3, reviewer 12's rb6: the
/// desk's pull ended the wait while the tablet held the laptop's later record, the restored laptop
/// signed that number again, and the tablet refused its records of the project for good), and each
/// device of someone else's the project is shared with or from (reviewer 13, N-s13-3, rb10: the
/// restored desk, origin of a project shared with a colleague, forked with the colleague for good
/// after a pull from its own laptop). A refused change and `sync status` name the devices still
/// awaited; a revoked one is no longer awaited; `repair --write-anyway` still ends the wait.
/// Before, each of these tests failed: the write after the first own device's pull was taken.
@Suite(.serialized)
struct RestoreWaitsForEveryDeviceCommandTests {
    static let restoredWords = "First paragraph.\n\nSecond, only the tablet got it.\n\nWritten on the restored laptop.\n"

    static func run(_ vault: CLIVault, _ arguments: [String], stdin: String? = nil) throws {
        try ForkedColleagueCommandTests.run(vault, arguments, stdin: stdin)
    }

    static func show(_ vault: CLIVault, _ project: String, _ doc: String) throws -> String {
        try vault.run(["doc", "show", project, doc]).stdout
    }

    /// A write refused because the project still waits after the restore, naming `device`; nothing written.
    static func expectRefusedNaming(_ restored: CLIVault, _ project: String, _ doc: String, device: CLIVault, words: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try show(restored, project, doc)
        let refused = try restored.run(["doc", "write", project, doc], stdin: words)
        let fingerprint = try PeersCommandTests.fingerprint(device)
        #expect(refused.status == 77, "\(refused.status): \(refused.stdout) \(refused.stderr)", sourceLocation: sourceLocation)
        #expect(refused.stderr.contains("restore-backup") && refused.stderr.contains("still to sync with")
                && refused.stderr.contains(fingerprint) && refused.stderr.contains("vaultctl sync now --peer DEVICE")
                && refused.stderr.contains("repair --write-anyway"), "\(refused.stderr)", sourceLocation: sourceLocation)
        #expect(try show(restored, project, doc) == before, "nothing was written", sourceLocation: sourceLocation)
        let status = try restored.run(["sync", "status"])
        #expect(status.stdout.contains("VIEW-ONLY since the restore") && status.stdout.contains(fingerprint), "\(status.stdout)",
                sourceLocation: sourceLocation)
    }

    /// No device is said to have signed two histories on any of `vaults`.
    static func expectNoFork(_ vaults: [CLIVault], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for vault in vaults {
            let status = try vault.run(["sync", "status"])
            #expect(status.status == 0 && !status.stdout.contains("two histories") && !status.stdout.contains("NOT IN SYNC"),
                    "\(status.stdout) \(status.stderr)", sourceLocation: sourceLocation)
        }
    }

    /// Reviewer 12's rb6: laptop, desk and tablet, each of the laptop's pairs `mine` (desk and tablet
    /// not paired with each other). The laptop writes "Memo", syncs with both, is backed up, writes
    /// again and syncs with the tablet only; the backup is restored and both devices confirmed; the
    /// restored laptop syncs with the desk.
    struct ThreeOwnDevices {
        let desk: CLIVault, tablet: CLIVault, laptop: CLIVault, restored: CLIVault
        let restoreOutput: String
    }

    static func threeOwnDevices() throws -> ThreeOwnDevices {
        let desk = try CLIVault(), tablet = try CLIVault(), laptop = try CLIVault()
        try RestoredOwnRecordsCommandTests.pair(desk, laptop)
        try RestoredOwnRecordsCommandTests.pair(tablet, laptop)
        try Self.run(laptop, ["project", "create", "Memo", "--register", "general"])
        try Self.run(laptop, ["doc", "add", "Memo", "Draft"])
        try Self.run(laptop, ["doc", "write", "Memo", "Draft"], stdin: "First paragraph.\n")
        try ForkedColleagueCommandTests.synced(laptop, with: desk)
        try ForkedColleagueCommandTests.synced(laptop, with: tablet)
        let backup = laptop.root + "/laptop.backup"
        try Self.run(laptop, ["backup", "-o", backup])
        try Self.run(laptop, ["doc", "write", "Memo", "Draft"], stdin: "First paragraph.\n\nSecond, only the tablet got it.\n")
        try ForkedColleagueCommandTests.synced(laptop, with: tablet)

        let restored = try CLIVault(create: false)
        let output = try CLI.run(["restore-backup", backup, "--into", restored.directory, "--passphrase-file", restored.passphraseFile])
        try #require(output.status == 0, "\(output.stdout) \(output.stderr)")
        try RestoredOwnRecordsCommandTests.confirm(desk, on: restored)
        try RestoredOwnRecordsCommandTests.confirm(tablet, on: restored)
        // The desk lacks the laptop's record made after the backup: before, this pull ended the wait.
        try ForkedColleagueCommandTests.synced(restored, with: desk)
        return ThreeOwnDevices(desk: desk, tablet: tablet, laptop: laptop, restored: restored, restoreOutput: output.stdout)
    }

    @Test func aRestoredLaptopWaitsForTheTabletThatHoldsItsLaterRecordThenAllThreeConverge() throws {
        let setup = try Self.threeOwnDevices()
        let desk = setup.desk, tablet = setup.tablet, restored = setup.restored
        #expect(setup.restoreOutput.contains("until this vault has synced with each device that may hold this device's records"), "\(setup.restoreOutput)")
        try Self.expectRefusedNaming(restored, "Memo", "Draft", device: tablet, words: Self.restoredWords)

        try ForkedColleagueCommandTests.synced(restored, with: tablet)
        #expect(try Self.show(restored, "Memo", "Draft").contains("Second, only the tablet got it."))
        let written = try restored.run(["doc", "write", "Memo", "Draft"], stdin: Self.restoredWords)
        #expect(written.status == 0, "\(written.status): \(written.stderr)")
        #expect(!(try restored.run(["sync", "status"]).stdout.contains("VIEW-ONLY since the restore")))
        for device in [tablet, desk] { try ForkedColleagueCommandTests.synced(restored, with: device) }
        let shows = try [restored, tablet, desk].map { try Self.show($0, "Memo", "Draft") }
        #expect(shows.allSatisfy { $0 == Self.restoredWords }, "laptop, tablet, desk: \(shows)")
        try Self.expectNoFork([restored, tablet, desk])
    }

    /// The tablet is revoked on the restored laptop (the owner says it is gone): it is no longer
    /// awaited, and the project takes changes.
    @Test func aRevokedDeviceIsNoLongerAwaited() throws {
        let setup = try Self.threeOwnDevices()
        try Self.expectRefusedNaming(setup.restored, "Memo", "Draft", device: setup.tablet, words: Self.restoredWords)
        let revoked = try setup.restored.run(["peers", "revoke", "--peer", try PeersCommandTests.fingerprint(setup.tablet)])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let written = try setup.restored.run(["doc", "write", "Memo", "Draft"], stdin: "First paragraph.\n\nAfter the tablet was revoked.\n")
        #expect(written.status == 0, "\(written.status): \(written.stderr)")
        try ForkedColleagueCommandTests.synced(setup.restored, with: setup.desk)
        #expect(try Self.show(setup.desk, "Memo", "Draft").contains("After the tablet was revoked."))
    }

    /// `repair --write-anyway` still ends the wait while a device is awaited, recorded.
    @Test func repairWriteAnywayStillEndsTheWaitWhileADeviceIsAwaited() throws {
        let setup = try Self.threeOwnDevices()
        try Self.expectRefusedNaming(setup.restored, "Memo", "Draft", device: setup.tablet, words: Self.restoredWords)
        let released = try setup.restored.run(["repair", "--write-anyway", "Memo"])
        #expect(released.status == 0, "\(released.stderr)")
        #expect(try setup.restored.run(["doc", "write", "Memo", "Draft"], stdin: "First paragraph.\n\nWritten anyway.\n").status == 0)
        #expect(!(try setup.restored.run(["sync", "status"]).stdout.contains("VIEW-ONLY since the restore")))
        let log = try setup.restored.run(["audit", "log", "--json", "--action", "sync.own-records-released"])
        #expect(log.stdout.contains("sync.own-records-released"), "\(log.stdout)")
    }

    /// Reviewer 13's rb10: the desk made "Book", shared it with a colleague as editor, and synced the
    /// laptop; after the backup the desk wrote a line only the colleague took. The restored desk syncs
    /// with its laptop: the project still waits, naming the colleague and that the owner must sync
    /// with it (the daemon reaches only own devices); after that sync it writes, and desk, colleague
    /// and laptop converge with no fork.
    @Test func aRestoredOriginWaitsForTheColleagueItSharesTheProjectWithThenAllConverge() throws {
        let desk = try CLIVault(), laptop = try CLIVault(), colleague = try CLIVault()
        try RestoredOwnRecordsCommandTests.pair(desk, laptop)
        try ForkedColleagueCommandTests.pair(desk, colleague, trust: "other")
        try Self.run(desk, ["project", "create", "Book", "--register", "fiction"])
        try Self.run(desk, ["doc", "add", "Book", "Ch1"])
        try Self.run(desk, ["doc", "write", "Book", "Ch1"], stdin: "Owner line 1.\n")
        let project = try #require((try RepairCommandTests.json(try desk.run(["project", "show", "Book", "--json"])))["id"] as? String)
        let (daemon, address) = try ServeChannelTests.serve(colleague)
        let shared = try desk.run(["share", "project \(project)", "--with", try PeersCommandTests.fingerprint(colleague),
                                   "--role", "editor", "--address", address])
        SyncNotInSyncCommandTests.stop(daemon)
        try #require(shared.status == 0, "\(shared.stderr)")
        try ForkedColleagueCommandTests.synced(colleague, with: desk)
        try ForkedColleagueCommandTests.synced(laptop, with: desk)
        let backup = desk.root + "/desk.backup"
        try Self.run(desk, ["backup", "-o", backup])
        try Self.run(desk, ["doc", "write", "Book", "Ch1"], stdin: "Owner line 1.\nOwner line 2, only the colleague got it.\n")
        try ForkedColleagueCommandTests.synced(colleague, with: desk)

        let restored = try CLIVault(create: false)
        let output = try CLI.run(["restore-backup", backup, "--into", restored.directory, "--passphrase-file", restored.passphraseFile])
        try #require(output.status == 0, "\(output.stdout) \(output.stderr)")
        let colleagueID = try PeersCommandTests.fingerprint(colleague)
        #expect(output.stdout.contains("The backup shares projects with 1 device(s) of someone else's") && output.stdout.contains(colleagueID)
                && output.stdout.contains("with each of them yourself"), "\(output.stdout)")
        try RestoredOwnRecordsCommandTests.confirm(laptop, on: restored)
        try ForkedColleagueCommandTests.synced(restored, with: laptop)
        let words = "Owner line 1.\nOwner line 2, only the colleague got it.\nWritten on the restored desk.\n"
        try Self.expectRefusedNaming(restored, "Book", "Ch1", device: colleague, words: words)
        let refused = try restored.run(["doc", "write", "Book", "Ch1"], stdin: words)
        #expect(refused.stderr.contains("someone else's: run 'vaultctl sync now --peer \(colleagueID)' yourself"), "\(refused.stderr)")

        try ForkedColleagueCommandTests.synced(restored, with: colleague)
        #expect(try Self.show(restored, "Book", "Ch1").contains("Owner line 2, only the colleague got it."))
        let written = try restored.run(["doc", "write", "Book", "Ch1"], stdin: words)
        #expect(written.status == 0, "\(written.status): \(written.stderr)")
        for _ in 0..<2 { try ForkedColleagueCommandTests.synced(colleague, with: restored) }
        try Self.run(colleague, ["doc", "write", project, "Ch1"], stdin: words + "Colleague later line.\n")
        try ForkedColleagueCommandTests.synced(colleague, with: restored)
        try ForkedColleagueCommandTests.synced(laptop, with: restored)
        let shows = [try Self.show(restored, "Book", "Ch1"), try Self.show(colleague, project, "Ch1"), try Self.show(laptop, "Book", "Ch1")]
        #expect(shows.allSatisfy { $0 == words + "Colleague later line.\n" }, "desk, colleague, laptop: \(shows)")
        try Self.expectNoFork([restored, colleague, laptop])
    }

    /// The colleague's own restore, the other way round: the owner's desk shared "Case" with the
    /// colleague's desk, which synced its own laptop; after the backup the colleague wrote a line only
    /// the owner's desk took. The colleague's restored desk syncs with its own laptop: "Case" still
    /// waits, naming the owner's desk; after syncing with it the colleague writes and both converge.
    @Test func aColleaguesRestoredDeviceWaitsForTheOwnersDeviceThatHoldsItsLaterRecord() throws {
        let owner = try CLIVault(), colleague = try CLIVault(), colleagueLaptop = try CLIVault()
        try RestoredOwnRecordsCommandTests.pair(colleague, colleagueLaptop)
        try ForkedColleagueCommandTests.pair(owner, colleague, trust: "other")
        try Self.run(owner, ["project", "create", "Case", "--register", "general"])
        try Self.run(owner, ["doc", "add", "Case", "Notes"])
        try Self.run(owner, ["doc", "write", "Case", "Notes"], stdin: "Owner words.\n")
        let project = try #require((try RepairCommandTests.json(try owner.run(["project", "show", "Case", "--json"])))["id"] as? String)
        let (daemon, address) = try ServeChannelTests.serve(colleague)
        let shared = try owner.run(["share", "project \(project)", "--with", try PeersCommandTests.fingerprint(colleague),
                                    "--role", "editor", "--address", address])
        SyncNotInSyncCommandTests.stop(daemon)
        try #require(shared.status == 0, "\(shared.stderr)")
        try ForkedColleagueCommandTests.synced(colleague, with: owner)
        try Self.run(colleague, ["doc", "write", project, "Notes"], stdin: "Owner words.\nColleague line 1.\n")
        try ForkedColleagueCommandTests.synced(colleague, with: owner)
        try ForkedColleagueCommandTests.synced(colleagueLaptop, with: colleague)
        let backup = colleague.root + "/colleague.backup"
        try Self.run(colleague, ["backup", "-o", backup])
        try Self.run(colleague, ["doc", "write", project, "Notes"], stdin: "Owner words.\nColleague line 1.\nColleague line 2, only the owner got it.\n")
        try ForkedColleagueCommandTests.synced(colleague, with: owner)

        let restored = try CLIVault(create: false)
        let output = try CLI.run(["restore-backup", backup, "--into", restored.directory, "--passphrase-file", restored.passphraseFile])
        try #require(output.status == 0, "\(output.stdout) \(output.stderr)")
        try RestoredOwnRecordsCommandTests.confirm(colleagueLaptop, on: restored)
        try ForkedColleagueCommandTests.synced(restored, with: colleagueLaptop)
        let words = "Owner words.\nColleague line 1.\nColleague line 2, only the owner got it.\nAfter the restore.\n"
        try Self.expectRefusedNaming(restored, project, "Notes", device: owner, words: words)

        try ForkedColleagueCommandTests.synced(restored, with: owner)
        #expect(try Self.show(restored, project, "Notes").contains("Colleague line 2, only the owner got it."))
        let written = try restored.run(["doc", "write", project, "Notes"], stdin: words)
        #expect(written.status == 0, "\(written.status): \(written.stderr)")
        try ForkedColleagueCommandTests.synced(restored, with: owner)
        try ForkedColleagueCommandTests.synced(colleagueLaptop, with: restored)
        let shows = [try Self.show(restored, project, "Notes"), try Self.show(owner, "Case", "Notes"), try Self.show(colleagueLaptop, project, "Notes")]
        #expect(shows.allSatisfy { $0 == words }, "colleague, owner, colleague's laptop: \(shows)")
        try Self.expectNoFork([restored, owner, colleagueLaptop])
    }

    /// Reviewer 14's rb12 (N-s14-6): the laptop is an editor of a colleague's project and syncs the
    /// owner's desk; restored from its backup, it syncs with the colleague first, as the restore says.
    /// The colleague's offer (editor) made the project writable again while the wait still kept
    /// anything from being committed, so the next edit was taken (exit 0) and overwritten by the next
    /// record received. Now it stays view-only until the desk too was synced with; then it writes, and
    /// the colleague takes the edit.
    @Test func aColleaguesEditorRoleDoesNotEndTheWaitOfARestoredLaptop() throws {
        let desk = try CLIVault(), laptop = try CLIVault(), colleague = try CLIVault()
        try RestoredOwnRecordsCommandTests.pair(desk, laptop)
        try ForkedColleagueCommandTests.pair(colleague, laptop, trust: "other")
        try Self.run(colleague, ["project", "create", "Case", "--register", "general"])
        try Self.run(colleague, ["doc", "add", "Case", "Notes"])
        try Self.run(colleague, ["doc", "write", "Case", "Notes"], stdin: "Colleague first words.\n")
        let project = try #require((try RepairCommandTests.json(try colleague.run(["project", "show", "Case", "--json"])))["id"] as? String)
        let (daemon, address) = try ServeChannelTests.serve(laptop)
        let shared = try colleague.run(["share", "project \(project)", "--with", try PeersCommandTests.fingerprint(laptop),
                                        "--role", "editor", "--address", address])
        SyncNotInSyncCommandTests.stop(daemon)
        try #require(shared.status == 0, "\(shared.stderr)")
        try ForkedColleagueCommandTests.synced(laptop, with: colleague)
        try ForkedColleagueCommandTests.synced(laptop, with: desk)
        let backup = laptop.root + "/laptop.backup"
        try Self.run(laptop, ["backup", "-o", backup])
        let restored = try CLIVault(create: false)
        let output = try CLI.run(["restore-backup", backup, "--into", restored.directory, "--passphrase-file", restored.passphraseFile])
        try #require(output.status == 0, "\(output.stdout) \(output.stderr)")
        try RestoredOwnRecordsCommandTests.confirm(desk, on: restored)

        try ForkedColleagueCommandTests.synced(restored, with: colleague)
        let words = "Colleague first words.\nRestored laptop line.\n"
        try Self.expectRefusedNaming(restored, project, "Notes", device: desk, words: words)
        try ForkedColleagueCommandTests.synced(restored, with: desk)
        let written = try restored.run(["doc", "write", project, "Notes"], stdin: words)
        #expect(written.status == 0, "\(written.status): \(written.stderr)")
        try ForkedColleagueCommandTests.synced(restored, with: colleague)
        #expect(try Self.show(colleague, "Case", "Notes") == words)
        try Self.expectNoFork([restored, colleague])
    }
}
