import Foundation
import Testing
import TestSupport

/// A laptop restored from its backup keeps its device identity while its records are rewound
/// (review 17 s10, N-s10-4; SECURITY.md §19.10, step 3). Before, its next record reused a counter it
/// had signed after the backup: `sync now` said "syncs" on both devices while they showed different
/// text, and the next edit left the project NOT IN SYNC for good. Now `restore-backup` makes every
/// project with sync records view-only until a sync with an own device has brought this device's
/// records back, and says so.
@Suite(.serialized)
struct RestoredOwnRecordsCommandTests {
    static let restoredWords = "First paragraph.\n\nWritten on the restored laptop.\n"

    /// Desk and laptop, each other's own devices; the laptop writes "Memo", syncs, is backed up,
    /// writes more and syncs again; then the backup is restored into a new folder (`restoreOutput`:
    /// what restore-backup printed).
    struct Restored {
        let desk: CLIVault, laptop: CLIVault, restored: CLIVault
        let restoreOutput: CLI.Result
    }

    /// `deskIsMine: false`: before the backup the laptop says the desk is someone else's, so the
    /// restored vault pairs no own device. `syncedBeforeBackup: false`: "Memo" is backed up before
    /// its first sync, so the backup holds no sync record of it (review 17 s11, N-s11-1).
    /// `pairedAfterBackup`: the laptop is backed up before it pairs the desk, so the restored vault
    /// does not know the desk that holds its later records (N-s11-1's remaining case). With
    /// `identityBeforeBackup` it paired a colleague's device before the backup (reviewer 12's rb5);
    /// without, it paired no device at all before the backup (rb4), whose device identity `init`
    /// made all the same. `olderBackup`: the backup is made as an older vaultctl made it of a vault
    /// never paired, without the device identity (`OlderBackupFile`).
    static func restoredLaptop(json: Bool = false, deskIsMine: Bool = true, syncedBeforeBackup: Bool = true,
                               pairedAfterBackup: Bool = false, identityBeforeBackup: Bool = true, olderBackup: Bool = false) throws -> Restored {
        let desk = try CLIVault(), laptop = try CLIVault()
        if !pairedAfterBackup { try pair(desk, laptop) }
        if pairedAfterBackup && identityBeforeBackup { try pair(try CLIVault(), laptop, trust: "other") }
        for arguments in [["project", "create", "Memo", "--register", "general"], ["doc", "add", "Memo", "Draft"]] {
            let made = try laptop.run(arguments)
            try #require(made.status == 0, "\(arguments): \(made.stderr)")
        }
        try #require(try laptop.run(["doc", "write", "Memo", "Draft"], stdin: "First paragraph.\n").status == 0)
        if syncedBeforeBackup && !pairedAfterBackup {
            let first = try SyncNotInSyncCommandTests.sync(laptop, with: desk)
            try #require(first.status == 0, "\(first.stdout) \(first.stderr)")
        }
        if !deskIsMine {
            let demoted = try laptop.run(["peers", "trust", "--peer", try PeersCommandTests.fingerprint(desk), "other"])
            try #require(demoted.status == 0, "\(demoted.stderr)")
        }
        let backup = laptop.root + "/laptop.backup"
        let backedUp = try laptop.run(["backup", "-o", backup])
        try #require(backedUp.status == 0, "\(backedUp.stderr)")
        if olderBackup { try OlderBackupFile.droppingDeviceIdentity(backup, passphrase: CLIVault.passphrase) }
        if pairedAfterBackup { try pair(desk, laptop) }
        try #require(try laptop.run(["doc", "write", "Memo", "Draft"], stdin: "First paragraph.\n\nSecond, after the backup.\n").status == 0)
        if deskIsMine {  // to someone else's device the owner's unshared project does not sync
            let second = try SyncNotInSyncCommandTests.sync(laptop, with: desk)
            try #require(second.status == 0, "\(second.stdout) \(second.stderr)")
            try #require(try desk.run(["doc", "show", "Memo", "Draft"]).stdout.contains("Second, after the backup."))
        }

        let restored = try CLIVault(create: false)
        let output = try CLI.run(["restore-backup", backup, "--into", restored.directory, "--passphrase-file", restored.passphraseFile]
                                 + (json ? ["--json"] : []))
        try #require(output.status == 0, "\(output.stdout) \(output.stderr)")
        return Restored(desk: desk, laptop: laptop, restored: restored, restoreOutput: output)
    }

    /// `vaultctl pair host --trust TRUST` on the desk, `vaultctl pair join … --trust TRUST` on the laptop.
    static func pair(_ desk: CLIVault, _ laptop: CLIVault, trust: String = "mine") throws {
        let host = try PairCommandTests.startHost(desk, ["--address", "127.0.0.1:0", "--trust", trust])
        let joined = try PairCommandTests.join(laptop, host.address, code: host.code, extra: ["--trust", trust])
        let hosted = host.finish()
        try #require(joined.status == 0 && hosted.status == 0, "pairing: \(joined.stderr) \(hosted.stderr)")
    }

    /// The owner says the desk is still their own device on the restored laptop.
    static func confirm(_ desk: CLIVault, on restored: CLIVault) throws {
        let confirmed = try restored.run(["peers", "trust", "--peer", try PeersCommandTests.fingerprint(desk), "mine"])
        try #require(confirmed.status == 0 && confirmed.stdout.contains("is now your own device"), "\(confirmed.stdout) \(confirmed.stderr)")
    }

    /// The restored laptop refuses a write, naming the reason and the remedy, and keeps its text.
    static func expectWriteRefused(_ restored: CLIVault) throws {
        let refused = try restored.run(["doc", "write", "Memo", "Draft"], stdin: Self.restoredWords)
        #expect(refused.status == 77, "\(refused.status): \(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("restore-backup") && refused.stderr.contains("vaultctl sync now --peer DEVICE"), "\(refused.stderr)")
        #expect(!(try restored.run(["doc", "show", "Memo", "Draft"]).stdout.contains("Written on the restored laptop.")), "nothing was written")
    }

    @Test(arguments: [true, false])
    func aRestoredLaptopIsViewOnlyUntilItSyncedWithAnOwnDeviceThenBothShowTheSameTextAndKeepSyncing(syncedBeforeBackup: Bool) throws {
        let setup = try Self.restoredLaptop(syncedBeforeBackup: syncedBeforeBackup)
        let desk = setup.desk, restored = setup.restored
        #expect(setup.restoreOutput.stdout.contains("1 project(s) are view-only here"), "\(setup.restoreOutput.stdout)")
        #expect(setup.restoreOutput.stdout.contains("Sync with your own devices before you write: vaultctl sync now --peer DEVICE --vault \(restored.directory)"),
                "\(setup.restoreOutput.stdout)")
        try Self.expectWriteRefused(restored)

        // The backup's own devices are held until the owner confirms them (review 17 s11, N-s11-4).
        let deskID = try PeersCommandTests.fingerprint(desk)
        #expect(setup.restoreOutput.stdout.contains("The backup trusted 1 device(s) as your own"), "\(setup.restoreOutput.stdout)")
        #expect(setup.restoreOutput.stdout.contains("vaultctl peers trust --peer \(deskID) mine --vault \(restored.directory)"), "\(setup.restoreOutput.stdout)")
        #expect(setup.restoreOutput.stdout.contains("If none of them is still yours, let every project take changes again: vaultctl repair --write-anyway-all --vault"),
                "\(setup.restoreOutput.stdout)")
        try Self.confirm(desk, on: restored)

        // The sync brings back the laptop's record made after the backup; then the project takes changes.
        let synced = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        #expect(synced.status == 0, "\(synced.stdout) \(synced.stderr)")
        #expect(try restored.run(["doc", "show", "Memo", "Draft"]).stdout.contains("Second, after the backup."))
        try Self.expectWritesReachTheDesk(restored, desk)
    }

    /// The restored laptop writes and syncs twice: the desk shows each edit, both show the same
    /// text, and the project syncs (before the fix, from the second edit on: exit 75,
    /// missingParents, for good).
    static func expectWritesReachTheDesk(_ restored: CLIVault, _ desk: CLIVault) throws {
        let written = try restored.run(["doc", "write", "Memo", "Draft"], stdin: Self.restoredWords)
        #expect(written.status == 0, "\(written.stderr)")
        let sent = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        #expect(sent.status == 0, "\(sent.stdout) \(sent.stderr)")
        let deskShows = try desk.run(["doc", "show", "Memo", "Draft"]).stdout, laptopShows = try restored.run(["doc", "show", "Memo", "Draft"]).stdout
        #expect(deskShows.contains("Written on the restored laptop.") && deskShows == laptopShows, "desk: \(deskShows) laptop: \(laptopShows)")

        let more = Self.restoredWords + "\nAnd more on the laptop.\n"
        #expect(try restored.run(["doc", "write", "Memo", "Draft"], stdin: more).status == 0)
        let again = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        let deskAfter = try desk.run(["doc", "show", "Memo", "Draft"]).stdout, laptopAfter = try restored.run(["doc", "show", "Memo", "Draft"]).stdout
        #expect(deskAfter.contains("And more on the laptop.") && deskAfter == laptopAfter, "desk: \(deskAfter) laptop: \(laptopAfter)")
        for vault in [restored, desk] {
            let status = try vault.run(["sync", "status"])
            #expect(!status.stdout.contains("NOT IN SYNC") && !status.stdout.contains("two histories"), "\(status.stdout)")
        }
    }

    /// The backup pairs none of the owner's devices: the desk was paired with the laptop after it,
    /// and holds the laptop's record signed since. Every project of the restored laptop waits all
    /// the same, and restore-backup says to pair such a device again and sync first; the owner
    /// does, and only then writes: both devices keep the same text and sync (review 17 s11, N-s11-1's
    /// remaining case). Before, nothing waited: the restored laptop wrote at once, signed its record 1
    /// again with other words, and the two devices split for good.
    @Test func aDeskPairedAfterTheBackupIsAskedBeforeTheRestoredLaptopWrites() throws {
        let setup = try Self.restoredLaptop(pairedAfterBackup: true)
        let desk = setup.desk, restored = setup.restored, said = setup.restoreOutput.stdout
        #expect(said.contains("1 project(s) are view-only here"), "\(said)")
        #expect(said.contains("This backup pairs none of your own devices") && said.contains("pair it again"), "\(said)")
        #expect(!said.contains("This backup holds no device identity"), "the backup holds the laptop's identity: \(said)")
        #expect(said.contains("If no device of yours ever synced with this one, let every project take changes again: "
                              + "vaultctl repair --write-anyway-all --vault \(restored.directory)"), "\(said)")
        try Self.expectWriteRefused(restored)

        try Self.pair(desk, restored)
        let synced = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        #expect(synced.status == 0, "\(synced.stdout) \(synced.stderr)")
        #expect(try restored.run(["doc", "show", "Memo", "Draft"]).stdout.contains("Second, after the backup."))
        try Self.expectWritesReachTheDesk(restored, desk)
    }

    @Test func repairWriteAnywayLetsARestoredLaptopWriteAtOnceRecorded() throws {
        let setup = try Self.restoredLaptop(json: true)
        let restored = setup.restored
        let said = try #require(try JSONSerialization.jsonObject(with: Data(setup.restoreOutput.stdout.utf8)) as? [String: Any])
        let project = try #require((try RepairCommandTests.json(try restored.run(["project", "show", "Memo", "--json"])))["id"] as? String)
        #expect(said["awaiting"] as? [String] == [project], "\(said)")
        let held = try #require(said["held"] as? [[String: Any]], "\(said)")
        let confirm = "vaultctl peers trust --peer \(try PeersCommandTests.fingerprint(setup.desk)) mine"
        #expect(held.count == 1 && (held.first?["confirm"] as? String)?.hasPrefix(confirm) == true, "\(held)")
        try Self.expectWriteRefused(restored)

        let released = try restored.run(["repair", "--write-anyway", "Memo"])
        #expect(released.status == 0, "\(released.stderr)")
        #expect(released.stdout.contains("takes changes here again, without the records of it your own devices may hold"), "\(released.stdout)")
        #expect(try restored.run(["doc", "write", "Memo", "Draft"], stdin: Self.restoredWords).status == 0)
        let log = try restored.run(["audit", "log", "--json"])
        #expect(log.stdout.contains("sync.own-records-released"), "\(log.stdout.suffix(2000))")
    }

    /// The backup was made before the laptop was first paired (reviewer 12's rb4). It holds the
    /// laptop's device identity all the same, made by `init`: the restored laptop is the same device
    /// to the desk, waits view-only, pairs the desk again, and the desk's records of it (signed after
    /// the backup) come back with a complete pull that ends the wait; then both keep the same text and
    /// sync, no word lost (review 17 s12, N-s12-2 (b)). Before, the backup held no identity: the
    /// restored laptop took a new one at the pairing, refused the desk's records of the old one for
    /// good (exit 75, attributionMismatch), and the desk had shown "First paragraph." twice.
    @Test func aBackupMadeBeforeTheFirstPairingBringsBackTheSameDeviceWhichTakesTheDesksRecordsAndConverges() throws {
        let setup = try Self.restoredLaptop(pairedAfterBackup: true, identityBeforeBackup: false)
        let desk = setup.desk, laptop = setup.laptop, restored = setup.restored, said = setup.restoreOutput.stdout
        #expect(said.contains("1 project(s) are view-only here") && !said.contains("This backup holds no device identity"), "\(said)")
        #expect(try PeersCommandTests.fingerprint(restored) == PeersCommandTests.fingerprint(laptop), "the restored vault is the same device")
        try Self.expectWriteRefused(restored)

        try Self.pair(desk, restored)
        let synced = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        #expect(synced.status == 0 && !synced.stderr.contains("attributionMismatch"), "\(synced.status): \(synced.stdout) \(synced.stderr)")
        #expect(try restored.run(["doc", "show", "Memo", "Draft"]).stdout == "First paragraph.\n\nSecond, after the backup.\n")
        try Self.expectWritesReachTheDesk(restored, desk)
        let deskShows = try desk.run(["doc", "show", "Memo", "Draft"]).stdout
        #expect(deskShows.components(separatedBy: "First paragraph.").count == 2, "the desk's text once: \(deskShows)")
    }

    /// A backup an older vaultctl made before the laptop was first paired holds no device identity:
    /// the restored laptop takes a new one when it pairs the desk again, and the desk's records made
    /// by the lost one name this vault's own audit device, so they are refused here (attributionMismatch).
    /// The restore says so and names the way that works; such a pull does not end the wait, and
    /// nothing of the restored laptop's reaches the desk to double its text (reviewer 12's rb4 on the
    /// builds before `init` made the identity).
    @Test func anOlderBackupWithoutADeviceIdentityIsSaidAndKeepsWaitingWhenTheDesksRecordsOfTheLostOneAreRefused() throws {
        let setup = try Self.restoredLaptop(pairedAfterBackup: true, identityBeforeBackup: false, olderBackup: true)
        let desk = setup.desk, restored = setup.restored
        #expect(setup.restoreOutput.stdout.contains("1 project(s) are view-only here"), "\(setup.restoreOutput.stdout)")
        // The restore says what cannot come back, and the way that works (reviewer 12 on 7e43e2a).
        #expect(setup.restoreOutput.stdout.contains("This backup holds no device identity")
                && setup.restoreOutput.stdout.contains("copy the words it shows ('vaultctl doc show' there) into a new project"), "\(setup.restoreOutput.stdout)")
        try Self.pair(desk, restored)
        let synced = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        #expect(synced.status == 75 && synced.stderr.contains("attributionMismatch"), "\(synced.status): \(synced.stdout) \(synced.stderr)")
        try Self.expectWriteRefused(restored)
        _ = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        let deskShows = try desk.run(["doc", "show", "Memo", "Draft"]).stdout
        #expect(deskShows.contains("Second, after the backup.") && !deskShows.contains("First paragraph.First paragraph."), "\(deskShows)")
    }

    /// The owner's only device, never paired, with a chart and a memo, restored from its backup: one
    /// `repair --write-anyway-all` lifts the wait of every project (reviewer 12, rb9: before, one
    /// --write-anyway per project). A chart is released only in a session: without --purpose the
    /// memo is released and the chart named with what it needs (exit 77); with it, the chart too.
    @Test func oneWriteAnywayAllLetsEveryProjectOfARestoredSingleDeviceTakeChangesAgain() throws {
        let laptop = try CLIVault()
        let purpose = ["--purpose", "restore"]
        for arguments in [["project", "create", "Chart", "--register", "healthcare"], ["doc", "add", "Chart", "Session"] + purpose,
                          ["project", "create", "Memo", "--register", "general"], ["doc", "add", "Memo", "Draft"]] {
            let made = try laptop.run(arguments)
            try #require(made.status == 0, "\(arguments): \(made.stderr)")
        }
        try #require(try laptop.run(["doc", "write", "Chart", "Session"] + purpose, stdin: "Patient said A.\n").status == 0)
        try #require(try laptop.run(["doc", "write", "Memo", "Draft"], stdin: "First paragraph.\n").status == 0)
        let backup = laptop.root + "/laptop.backup"
        try #require(try laptop.run(["backup", "-o", backup]).status == 0)
        let restored = try CLIVault(create: false)
        let output = try CLI.run(["restore-backup", backup, "--into", restored.directory, "--passphrase-file", restored.passphraseFile])
        try #require(output.status == 0, "\(output.stdout) \(output.stderr)")
        #expect(output.stdout.contains("2 project(s) are view-only here") && output.stdout.contains(
            "let every project take changes again: vaultctl repair --write-anyway-all --purpose TEXT --vault \(restored.directory)")
                && output.stdout.contains("Privileged projects among them: 1"), "\(output.stdout)")
        try Self.expectWriteRefused(restored)

        let withoutPurpose = try restored.run(["repair", "--write-anyway-all"])
        #expect(withoutPurpose.status == 77 && withoutPurpose.stdout.contains("1 project(s) take changes here again")
                && withoutPurpose.stderr.contains("1 privileged project(s) still wait") && withoutPurpose.stderr.contains("--write-anyway-all --purpose TEXT"),
                "\(withoutPurpose.status): \(withoutPurpose.stdout) \(withoutPurpose.stderr)")
        #expect(try restored.run(["doc", "write", "Memo", "Draft"], stdin: Self.restoredWords).status == 0)
        let chartRefused = try restored.run(["doc", "write", "Chart", "Session"] + purpose, stdin: "Patient said A.\nB.\n")
        #expect(chartRefused.status == 77, "the chart still waits: \(chartRefused.status) \(chartRefused.stderr)")

        let withPurpose = try restored.run(["repair", "--write-anyway-all"] + purpose + ["--json"])
        #expect(withPurpose.status == 0, "\(withPurpose.stderr)")
        let chart = try #require((try RepairCommandTests.json(try restored.run(["project", "show", "Chart", "--json"] + purpose)))["id"] as? String)
        #expect((try RepairCommandTests.json(withPurpose))["released"] as? [String] == [chart], "\(withPurpose.stdout)")
        #expect(try restored.run(["doc", "write", "Chart", "Session"] + purpose, stdin: "Patient said A.\nB.\n").status == 0)
        let again = try restored.run(["repair", "--write-anyway-all"])
        #expect(again.status == 0 && again.stdout.contains("No project here waits"), "\(again.stdout) \(again.stderr)")
        let log = try #require(try PairCommandTests.json(try restored.run(["audit", "log", "--json", "--action", "sync.own-records-released"])) as? [Any])
        #expect(log.count == 2, "one entry per project released")
    }

    /// A restored vault that pairs no device as its own cannot tell whether a device of the owner's
    /// paired after the backup holds its later records: every project waits all the same, and
    /// restore-backup names the way out when none does, `repair --write-anyway` (review 17 s11,
    /// N-s11-1's remaining case; before, such a vault stayed writable: lead, session 10, on 5ef4a9b).
    @Test func aRestoredVaultWithNoOwnDeviceWaitsUntilTheOwnerSaysNoneHoldsItsRecords() throws {
        let setup = try Self.restoredLaptop(deskIsMine: false)
        let restored = setup.restored, said = setup.restoreOutput.stdout
        #expect(said.contains("1 project(s) are view-only here") && said.contains("This backup pairs none of your own devices")
                && !said.contains("The backup trusted"), "\(said)")
        #expect(said.contains("vaultctl repair --write-anyway-all --vault \(restored.directory)"), "\(said)")
        try Self.expectWriteRefused(restored)

        let released = try restored.run(["repair", "--write-anyway", "Memo"])
        #expect(released.status == 0, "\(released.stderr)")
        let written = try restored.run(["doc", "write", "Memo", "Draft"], stdin: Self.restoredWords)
        #expect(written.status == 0, "\(written.status): \(written.stderr)")
        #expect(try restored.run(["doc", "show", "Memo", "Draft"]).stdout.contains("Written on the restored laptop."))
    }

    /// A device the owner took back after the backup (revoked, or made someone else's: a stolen
    /// tablet) is `mine` again in the backup. The restored vault holds every such device as someone
    /// else's until the owner confirms it: a privileged chart written after the restore does not reach
    /// it, and reaches it once the owner says it is theirs (review 17 s11, N-s11-4).
    @Test func aRestoredVaultSendsNoPrivilegedProjectToTheBackupsOwnDevicesUntilTheOwnerConfirmsThem() throws {
        let setup = try Self.restoredLaptop()
        let desk = setup.desk, restored = setup.restored
        let listed = try restored.run(["peers", "list", "--json"], unlock: false)
        let trusts = (try PairCommandTests.json(listed) as? [[String: Any]])?.map { $0["trust"] as? String }
        #expect(trusts == ["other"], "\(listed.stdout) \(listed.stderr)")
        let log = try restored.run(["audit", "log"])
        #expect(log.stdout.contains("peer.trust"), "\(log.stdout.suffix(1500))")

        let purpose = ["--purpose", "chart after the restore"]
        for arguments in [["project", "create", "Chart", "--register", "healthcare"], ["doc", "add", "Chart", "Visit"] + purpose] {
            let made = try restored.run(arguments)
            try #require(made.status == 0, "\(arguments): \(made.stderr)")
        }
        try #require(try restored.run(["doc", "write", "Chart", "Visit"] + purpose, stdin: "Seen after the restore.\n").status == 0)
        let deskProjects = { try (try PairCommandTests.json(try desk.run(["project", "list", "--json"])) as? [Any])?.count ?? -1 }
        #expect(try deskProjects() == 1, "the desk holds Memo alone")
        _ = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        #expect(try deskProjects() == 1, "a held device takes no privileged project")

        try Self.confirm(desk, on: restored)
        let synced = try SyncNotInSyncCommandTests.sync(restored, with: desk)
        #expect(synced.status == 0, "\(synced.stdout) \(synced.stderr)")
        #expect(try deskProjects() == 2)
        #expect(try desk.run(["doc", "show", "Chart", "Visit"] + purpose).stdout.contains("Seen after the restore."))
    }
}
