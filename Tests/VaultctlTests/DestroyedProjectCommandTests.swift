import Foundation
import Testing
import TestSupport

/// Shredding one project on one device (review 17 s13, N-s13-1; SECURITY.md §14.1, §19.8): `vaultctl
/// compartment destroy "project ID"` is the documented way, each device on its own. Before, the
/// destroyed compartment made every listing of the vault fail ("its compartment was destroyed"):
/// `project list`, the other projects, `sync status`, every exchange with that device (also for the
/// other projects), and every backup made after it could not be restored. Now the shredded project is
/// left out everywhere, an own device's offer never makes it again (declined as the owner's choice:
/// named with what stops it, recorded, exit 0), and the other projects keep working, syncing and restoring.
@Suite struct DestroyedProjectCommandTests {
    static func id(of name: String, in vault: CLIVault) throws -> String {
        try #require((try RepairCommandTests.json(try vault.run(["project", "show", name, "--json"])))["id"] as? String)
    }

    static func refusalReasons(_ vault: CLIVault) throws -> [String] {
        let log = try vault.run(["audit", "log", "--json", "--details"])
        let entries = try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
        return entries.filter { $0["action"] as? String == "sync.exchange-refused" }.compactMap { ($0["details"] as? [String: String])?["reason"] }
    }

    @Test func aProjectShreddedOnOneDeviceLeavesTheOthersWorkingSyncingAndRestorable() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        try RestoredOwnRecordsCommandTests.pair(desk, laptop)
        for name in ["Memo", "Other"] {
            for arguments in [["project", "create", name, "--register", "general"], ["doc", "add", name, "Note"]] {
                let made = try desk.run(arguments)
                try #require(made.status == 0, "\(arguments): \(made.stderr)")
            }
            try #require(try desk.run(["doc", "write", name, "Note"], stdin: "First of \(name).\n").status == 0)
        }
        let memo = try Self.id(of: "Memo", in: desk)
        let first = try SyncNotInSyncCommandTests.sync(laptop, with: desk)
        try #require(first.status == 0, "\(first.stdout) \(first.stderr)")

        let destroyed = try desk.run(["compartment", "destroy", "project \(memo)", "--yes"])
        try #require(destroyed.status == 0, "\(destroyed.stderr)")
        // The desk still lists and opens everything else.
        let listed = try desk.run(["project", "list"])
        #expect(listed.status == 0 && listed.stdout.contains("Other") && !listed.stdout.contains("Memo"), "\(listed.stdout) \(listed.stderr)")
        #expect(try desk.run(["doc", "show", "Other", "Note"]).stdout.contains("First of Other."))
        #expect(try desk.run(["sync", "status"]).status == 0)
        #expect(try desk.run(["doc", "show", memo, "Note"]).status != 0, "nothing of the shredded project opens")

        // The laptop writes both; its edit of the other project reaches the desk.
        #expect(try laptop.run(["doc", "write", "Other", "Note"], stdin: "First of Other.\n\nLaptop other.\n").status == 0)
        #expect(try laptop.run(["doc", "write", "Memo", "Note"], stdin: "First of Memo.\n\nLaptop after destroy.\n").status == 0)
        let pushed = try SyncNotInSyncCommandTests.sync(laptop, with: desk)
        #expect(pushed.status == 0, "\(pushed.stdout) \(pushed.stderr)")
        #expect(try desk.run(["doc", "show", "Other", "Note"]).stdout.contains("Laptop other."))
        // The desk asks: the laptop still holds the shredded project and offers it at every run. The
        // offer is declined (the owner's choice, made here), said once a run with what stops it, and
        // the run exits 0 (before: 75 at every run until it was destroyed on the laptop too).
        let laptopFingerprint = try PeersCommandTests.fingerprint(laptop)
        for run in 1...2 {
            let asked = try SyncNotInSyncCommandTests.sync(desk, with: laptop)
            #expect(asked.status == 0, "run \(run): \(asked.status) \(asked.stdout) \(asked.stderr)")
            #expect(asked.stdout.components(separatedBy: "Declined project \(memo) offered by ").count == 2, "once, run \(run): \(asked.stdout)")
            #expect(asked.stdout.contains("projectDestroyed: you destroyed it here, and device ")
                    && asked.stdout.contains("'vaultctl compartment destroy \"project \(memo)\" --yes' there"), "run \(run): \(asked.stdout)")
            #expect(!asked.stdout.contains("Refused project \(memo)") && !asked.stderr.contains("not every project synced"),
                    "run \(run): \(asked.stdout) \(asked.stderr)")
        }
        #expect(!(try desk.run(["project", "list"]).stdout.contains("Memo")), "not made again from the offer")
        #expect(try Self.refusalReasons(desk).contains("projectDestroyed"))
        let status = try desk.run(["sync", "status"])
        #expect(status.status == 0 && status.stdout.contains("project \(memo), not held here: its offer by device \(laptopFingerprint) declined here since ")
                && status.stdout.contains("projectDestroyed") && !status.stdout.contains("NOT IN SYNC"), "\(status.stdout) \(status.stderr)")
        // `--json` says it too: the refused offer is declined (guard13, s13: the flag was missing).
        let statusJSON = try RepairCommandTests.json(try desk.run(["sync", "status", "--json"]))
        let offer = try #require((statusJSON["offers_refused"] as? [[String: Any]])?.first { $0["project"] as? String == memo }, "\(statusJSON)")
        #expect(offer["declined"] as? Bool == true && offer["reasons"] as? [String] == ["projectDestroyed"], "\(offer)")
        #expect((statusJSON["peers"] as? [[String: Any]])?.first?["projects_not_in_sync"] as? [String] == [], "\(statusJSON)")

        // A backup made after the destroy restores, with the other project.
        let backup = desk.root + "/desk.backup"
        let backedUp = try desk.run(["backup", "-o", backup])
        try #require(backedUp.status == 0, "\(backedUp.stderr)")
        let restored = try CLIVault(create: false)
        let output = try CLI.run(["restore-backup", backup, "--into", restored.directory, "--passphrase-file", restored.passphraseFile])
        #expect(output.status == 0, "\(output.stdout) \(output.stderr)")
        #expect(try restored.run(["doc", "show", "Other", "Note"]).stdout.contains("Laptop other."))
        #expect(!(try restored.run(["project", "list"]).stdout.contains("Memo")))
    }

    /// `repair --from` an own device that still holds a project destroyed here (review 17 s14,
    /// N-s14-3). Before, the rebuild dropped the rows that remember the shredding ("never here"), and
    /// the next sync made the project again with a new compartment: the shred undone. Now the rebuild
    /// says it was destroyed here and keeps it so; the next sync still declines it.
    @Test func repairFromAnOwnDeviceThatStillHoldsItLeavesItDestroyed() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        try RestoredOwnRecordsCommandTests.pair(desk, laptop)
        for name in ["Memo", "Other"] {
            for arguments in [["project", "create", name, "--register", "general"], ["doc", "add", name, "Note"]] {
                let made = try desk.run(arguments)
                try #require(made.status == 0, "\(arguments): \(made.stderr)")
            }
            try #require(try desk.run(["doc", "write", name, "Note"], stdin: "Secret words of \(name).\n").status == 0)
        }
        let memo = try Self.id(of: "Memo", in: desk)
        try #require(try SyncNotInSyncCommandTests.sync(laptop, with: desk).status == 0)
        try #require(try desk.run(["compartment", "destroy", "project \(memo)", "--yes"]).status == 0)

        let (daemon, address) = try ServeChannelTests.serve(laptop)
        let repaired = try desk.run(["repair", "--from", try PeersCommandTests.fingerprint(laptop), "--address", address])
        SyncNotInSyncCommandTests.stop(daemon)
        #expect(repaired.status == 0, "\(repaired.stdout) \(repaired.stderr)")
        #expect(repaired.stdout.contains("Project \(memo) was destroyed here: not made again from ") && !repaired.stdout.contains("were never here"),
                "\(repaired.stdout)")
        let listed = try desk.run(["project", "list"])
        #expect(listed.stdout.contains("Other") && !listed.stdout.contains("Memo"), "\(listed.stdout)")
        #expect(try desk.run(["doc", "show", "Other", "Note"]).stdout.contains("Secret words of Other."))

        // The next sync with the laptop still declines it: nothing of it is made again.
        let asked = try SyncNotInSyncCommandTests.sync(desk, with: laptop)
        #expect(asked.status == 0 && asked.stdout.contains("Declined project \(memo) offered by "), "\(asked.status) \(asked.stdout) \(asked.stderr)")
        #expect(!(try desk.run(["project", "list"]).stdout.contains("Memo")))
        #expect(try desk.run(["doc", "show", memo, "Note"]).status != 0, "nothing of the shredded project opens")
    }

    /// The compartment `project ID` or `project ID (synced)` of the project here, not a shared one.
    static func ownCompartment(of project: String, in vault: CLIVault) throws -> String {
        let listed = try vault.run(["compartment", "list", "--json"])
        let all = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        return try #require(all.first { ($0["name"] as? String)?.hasPrefix("project \(project)") == true && $0["shared"] == nil }?["name"] as? String,
                            "\(listed.stdout)")
    }

    /// A colleague's project shredded here (review 17 s14, N-s14-4's text): the colleague's device
    /// still offers it at every sync, declined (exit 0, 9553b99). The line told the owner to destroy it
    /// on the colleague's device, which the owner cannot do. Now it says what is true of someone
    /// else's device: only its owner stops the offer, there, and nothing needs doing here; `sync
    /// status` says the same. (An own device's offer keeps its text: destroy it there too, the command.)
    @Test func aColleaguesProjectShreddedHereIsDeclinedSayingOnlyThatDevicesOwnerStopsTheOffer() throws {
        let (colleague, desk) = try PeersCommandTests.pairedVaults()  // trusted 'other' both ways
        for arguments in [["project", "create", "Case", "--register", "general"], ["doc", "add", "Case", "Notes"]] {
            let made = try colleague.run(arguments)
            try #require(made.status == 0, "\(arguments): \(made.stderr)")
        }
        try #require(try colleague.run(["doc", "write", "Case", "Notes"], stdin: "The colleague's words.\n").status == 0)
        let project = try Self.id(of: "Case", in: colleague)
        try DowngradedEditorCommandTests.share(project, from: colleague, with: desk, role: "editor")
        let first = try DowngradedEditorCommandTests.sync(desk, with: colleague)
        try #require(first.status == 0, "\(first.stdout) \(first.stderr)")
        try #require(try desk.run(["doc", "show", project, "Notes"]).stdout.contains("The colleague's words."))
        let destroyed = try desk.run(["compartment", "destroy", try Self.ownCompartment(of: project, in: desk), "--yes"])
        try #require(destroyed.status == 0, "\(destroyed.stdout) \(destroyed.stderr)")

        let colleagueFingerprint = try PeersCommandTests.fingerprint(colleague)
        for run in 1...2 {
            let asked = try DowngradedEditorCommandTests.sync(desk, with: colleague)
            #expect(asked.status == 0, "run \(run): \(asked.status) \(asked.stdout) \(asked.stderr)")
            #expect(asked.stdout.contains("Declined project \(project) offered by "), "run \(run): \(asked.stdout)")
            #expect(asked.stdout.contains("projectDestroyed: you destroyed it here; device ") && asked.stdout.contains(" is someone else's")
                    && asked.stdout.contains("only that device's owner can stop its offer") && asked.stdout.contains("nothing to do here"),
                    "run \(run): \(asked.stdout)")
            #expect(!asked.stdout.contains("compartment destroy") && !asked.stdout.contains("too:"), "no command for someone else's device: \(asked.stdout)")
        }
        #expect(try desk.run(["doc", "show", project, "Notes"]).status != 0, "never made again")
        let status = try desk.run(["sync", "status"])
        #expect(status.status == 0 && status.stdout.contains("project \(project), not held here: its offer by device \(colleagueFingerprint) declined here since ")
                && status.stdout.contains(" is someone else's") && status.stdout.contains("nothing to do here")
                && !status.stdout.contains("compartment destroy"), "\(status.stdout) \(status.stderr)")
    }

    /// The own device that still holds a project shredded on the desk, when it asks (review 17 s14,
    /// N-s14-5). Before, the laptop's `sync now` with the desk said nothing of it (exit 0, "Synced"),
    /// and its `sync status` said the project "syncs": the desk's refusal of its offer never reached
    /// it. Now the desk, asked by the laptop for the project it did not take, says it destroyed it
    /// (`projectDestroyed`, to an own device only); the laptop's run names the project as shredded on
    /// the desk with the command that destroys it here too (exit 0: the owner's choice), and `sync
    /// status` says so under the project, never "syncs". Both ways: when the desk asks, its own run
    /// says the laptop still holds it, with the command for there. Once destroyed on the laptop too,
    /// neither says anything of it.
    @Test func theLaptopThatStillHoldsAProjectShreddedOnTheDeskIsToldWhenItAsks() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        try RestoredOwnRecordsCommandTests.pair(desk, laptop)
        for name in ["Memo", "Other"] {
            for arguments in [["project", "create", name, "--register", "general"], ["doc", "add", name, "Note"]] {
                let made = try desk.run(arguments)
                try #require(made.status == 0, "\(arguments): \(made.stderr)")
            }
            try #require(try desk.run(["doc", "write", name, "Note"], stdin: "First of \(name).\n").status == 0)
        }
        let memo = try Self.id(of: "Memo", in: desk)
        try #require(try SyncNotInSyncCommandTests.sync(laptop, with: desk).status == 0)
        try #require(try desk.run(["compartment", "destroy", "project \(memo)", "--yes"]).status == 0)
        let deskFingerprint = try PeersCommandTests.fingerprint(desk)

        // The laptop asks: told, at every run, with the command for here; the other project syncs.
        #expect(try laptop.run(["doc", "write", "Other", "Note"], stdin: "First of Other.\n\nLaptop other.\n").status == 0)
        for run in 1...2 {
            let asked = try SyncNotInSyncCommandTests.sync(laptop, with: desk)
            #expect(asked.status == 0, "run \(run): \(asked.status) \(asked.stdout) \(asked.stderr)")
            #expect(asked.stdout.contains("Project \(memo) was destroyed on ") && asked.stdout.contains("it syncs no more with ")
                    && asked.stdout.contains("'vaultctl compartment destroy \"project \(memo)\" --yes'"), "run \(run): \(asked.stdout)")
            #expect(asked.stdout.hasPrefix("Synced 1 project(s) with "), "the shredded project is not counted as synced: \(asked.stdout)")
        }
        #expect(try desk.run(["doc", "show", "Other", "Note"]).stdout.contains("Laptop other."))
        #expect(!(try desk.run(["project", "list"]).stdout.contains("Memo")), "not made again on the desk")
        let status = try laptop.run(["sync", "status"])
        #expect(status.status == 0 && status.stdout.contains("project \(memo): shredded on device \(deskFingerprint)")
                && !status.stdout.contains("project \(memo): syncs") && !status.stdout.contains("NOT IN SYNC"), "\(status.stdout) \(status.stderr)")
        #expect(status.stdout.contains("destroyed on device \(deskFingerprint) (its compartment shredded there")
                && status.stdout.contains("'vaultctl compartment destroy \"project \(memo)\" --yes'"), "\(status.stdout)")
        let listed = try RepairCommandTests.json(try laptop.run(["sync", "status", "--json"]))
        let entry = try #require((listed["projects"] as? [[String: Any]])?.first { $0["project"] as? String == memo }, "\(listed)")
        #expect((entry["shredded_on"] as? [[String: Any]])?.first?["reasons"] as? [String] == ["projectDestroyed"], "\(entry)")
        #expect((listed["peers"] as? [[String: Any]])?.first?["projects_not_in_sync"] as? [String] == [], "\(listed)")

        // The desk asks: its run says the laptop still holds it, with the command for there.
        let deskAsks = try SyncNotInSyncCommandTests.sync(desk, with: laptop)
        #expect(deskAsks.status == 0 && deskAsks.stdout.contains("Declined project \(memo) offered by ")
                && deskAsks.stdout.contains("'vaultctl compartment destroy \"project \(memo)\" --yes' there"), "\(deskAsks.stdout) \(deskAsks.stderr)")

        // Destroyed on the laptop too: nothing more is said of it, either way.
        try #require(try laptop.run(["compartment", "destroy", "project \(memo)", "--yes"]).status == 0)
        let after = try SyncNotInSyncCommandTests.sync(laptop, with: desk)
        #expect(after.status == 0 && !after.stdout.contains(memo), "\(after.stdout) \(after.stderr)")
        let quiet = try laptop.run(["sync", "status"])
        #expect(quiet.status == 0 && !quiet.stdout.contains(memo), "\(quiet.stdout)")
    }
}
