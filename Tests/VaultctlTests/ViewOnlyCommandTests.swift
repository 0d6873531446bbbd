import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// A project shared with this device to view only, through the CLI end to end (issue 17, SECURITY.md
/// §19.9): two vaults paired with `pair host`/`pair join`, the owner shares its project with
/// `vaultctl share --role viewer`, the viewer syncs it with `vaultctl sync now`; then every writing
/// command that would change it on the viewer exits 77 naming the role, changes nothing, and is
/// recorded (`writing.change-refused`).
@Suite struct ViewOnlyCommandTests {
    static func stop(_ daemon: CLI.Running) {
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
    }

    static func refusals(_ vault: CLIVault) throws -> Int {
        let log = try vault.run(["audit", "log", "--json"])
        let entries = try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
        return entries.filter { $0["action"] as? String == "writing.change-refused" }.count
    }

    /// The owner (`desk`) shares the project with `laptop` as viewer: the grant reaches the laptop's
    /// daemon, which is stopped after it.
    static func shareToView(_ projectID: String, from desk: CLIVault, with laptop: CLIVault) throws {
        let (laptopDaemon, laptopAddress) = try ServeChannelTests.serve(laptop)
        let shared = try desk.run(["share", "project \(projectID)", "--with", try PeersCommandTests.fingerprint(laptop), "--role", "viewer",
                                   "--address", laptopAddress])
        Self.stop(laptopDaemon)
        try #require(shared.status == 0, "\(shared.stderr)")
    }

    @Test func everyWritingCommandOnAProjectSharedToViewIsRefusedWithExit77AndRecorded() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        for arguments in [["project", "create", "Brief", "--register", "general"], ["doc", "add", "Brief", "Draft"],
                          ["snapshot", "create", "Brief", "Draft", "--title", "First"], ["entry", "add", "Brief", "Ada", "--kind", "character", "-"]] {
            let made = try desk.run(arguments, stdin: arguments[0] == "entry" ? "The owner's entry.\n" : nil)
            try #require(made.status == 0, "\(arguments): \(made.stderr)")
        }
        #expect(try desk.run(["doc", "write", "Brief", "Draft"], stdin: "The owner's words.\n").status == 0)
        #expect(try desk.run(["branch", "create", "Brief", "Draft"], stdin: "The owner's proposal.\n").status == 0)
        let projectID = try #require((try RepairCommandTests.json(try desk.run(["project", "show", "Brief", "--json"])))["id"] as? String)

        try Self.shareToView(projectID, from: desk, with: laptop)
        // The laptop syncs it from the owner's daemon.
        let (deskDaemon, deskAddress) = try ServeChannelTests.serve(desk)
        defer { Self.stop(deskDaemon) }
        let synced = try laptop.run(["sync", "now", "--peer", try PeersCommandTests.fingerprint(desk), "--address", deskAddress])
        try #require(synced.status == 0, "\(synced.stderr)")
        let before = try laptop.run(["doc", "show", "Brief", "Draft"])
        #expect(before.status == 0 && before.stdout.contains("The owner's words."), "\(before.stderr)")
        // Whose it is shows beside its name (review 17 s8, F17), on the laptop only.
        let deskName = try #require(try PairCommandTests.json(try desk.run(["device", "--json"])) as? [String: Any])["name"] as? String
        let listing = try laptop.run(["project", "list"])
        #expect(listing.stdout.contains("Brief") && listing.stdout.contains("someone else's, shared by device \(deskName ?? "") (viewer)"), "\(listing.stdout)")
        let listedJSON = try JSONSerialization.jsonObject(with: Data(try laptop.run(["project", "list", "--json"]).stdout.utf8)) as? [[String: Any]] ?? []
        #expect((listedJSON.first?["shared_by"] as? [String: Any])?["role"] as? String == "viewer")
        #expect(try laptop.run(["project", "show", "Brief"]).stdout.contains("origin       someone else's project, shared by device"))
        let ownList = try JSONSerialization.jsonObject(with: Data(try desk.run(["project", "list", "--json"]).stdout.utf8)) as? [[String: Any]] ?? []
        #expect(ownList.first?["shared_by"] is NSNull, "the owner's own project names no origin")

        let commands: [([String], String?)] = [
            (["doc", "write", "Brief", "Draft"], "My words.\n"),
            (["doc", "add", "Brief", "Mine"], nil),
            (["doc", "move", "Brief", "Draft", "--top"], nil),
            (["doc", "rm", "Brief", "Draft", "--yes"], nil),
            (["doc", "import", "Brief", "Imported", "-"], "# Imported\n\nMine.\n"),
            (["snapshot", "create", "Brief", "Draft", "--title", "Mine"], nil),
            (["snapshot", "restore", "Brief", "Draft", "1"], nil),
            (["branch", "create", "Brief", "Draft"], "My proposal.\n"),
            (["branch", "adopt", "Brief", "Draft", "1"], nil),
            (["branch", "discard", "Brief", "Draft", "1"], nil),
            (["template", "use", "Brief", "scene-card"], nil),
            (["snippet", "insert", "Brief", "Draft", "scene-break"], nil),
            (["entry", "add", "Brief", "Mara", "--kind", "character", "-"], "Mine.\n"),
            (["entry", "rm", "Brief", "Ada", "--yes"], nil),
            (["project", "snapshot", "Brief", "--title", "Mine"], nil),
            (["project", "rename", "Brief", "Mine now"], nil),
            (["project", "archive", "Brief"], nil),
        ]
        for (arguments, input) in commands {
            let refused = try laptop.run(arguments, stdin: input)
            #expect(refused.status == 77, "\(arguments): \(refused.status) \(refused.stderr)")
            #expect(refused.stderr.contains("shared with you to view only"), "\(arguments): \(refused.stderr)")
        }
        // Nothing changed, and each refusal is on the record.
        let after = try laptop.run(["doc", "show", "Brief", "Draft"])
        #expect(after.stdout == before.stdout)
        let listed = try laptop.run(["doc", "list", "Brief"])
        #expect(!listed.stdout.contains("Mine") && !listed.stdout.contains("Imported"), "\(listed.stdout)")
        #expect(try laptop.run(["project", "list"]).stdout.contains("Brief"))
        #expect(try Self.refusals(laptop) == commands.count)
        // The one reason that holds, and what to do (F17-8: before, the refusal also named a restore's
        // or a repair's wait, though the vault knows this project waits for neither).
        let written = try laptop.run(["doc", "write", "Brief", "Draft"], stdin: "My words.\n")
        #expect(written.status == 77)
        #expect(written.stderr == "vaultctl: error: project \(projectID) is someone else's, shared with you to view only by device \(deskName ?? ""): "
                + "its owner's device takes no changes from this one. Nothing was changed\n"
                + "hint: its owner can make this device an editor ('vaultctl share ... --role editor' on the owner's device), "
                + "or copy the text into a project of your own\n", "\(written.stderr)")
        // Reading still works, and the owner's words stay the owner's.
        #expect(try laptop.run(["snapshot", "list", "Brief", "Draft"]).status == 0)
        #expect(try laptop.run(["branch", "list", "Brief", "Draft"]).status == 0)
    }
}
