import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// A colleague who owns a shared project makes the owner's laptop a viewer while the laptop holds an
/// edit it has not synced (session 13, SECURITY.md §19.5 "Set-aside records", §19.9), through the CLI
/// in real processes: the laptop signs the edit as editor and pushes it; the colleague refuses it
/// (`viewerCannotWrite`). Before, `sync now` exited 75 at every run for good and the laptop showed a
/// document no other device showed. Now the refused records are set aside: the laptop shows the
/// colleague's document, the words are kept in a sync-conflict branch (`vaultctl conflicts`), `sync
/// now` and `sync status` say what happened and what to do, later runs sync (exit 0, still naming
/// it), both sides audit the refusal, and once the colleague makes the laptop an editor again the
/// same signed records go to it.
@Suite struct DowngradedEditorCommandTests {
    static func stop(_ daemon: CLI.Running) {
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
    }

    static func actions(_ vault: CLIVault, _ action: String) throws -> [[String: Any]] {
        let log = try vault.run(["audit", "log", "--json", "--details"])
        let entries = try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
        return entries.filter { $0["action"] as? String == action }
    }

    static func detail(_ entry: [String: Any], _ key: String) -> String? {
        (entry["details"] as? [String: String])?[key]
    }

    /// The colleague shares `project` with the laptop in `role` (the grant reaches the laptop's daemon).
    static func share(_ project: String, from colleague: CLIVault, with laptop: CLIVault, role: String) throws {
        let (daemon, address) = try ServeChannelTests.serve(laptop)
        defer { stop(daemon) }
        let shared = try colleague.run(["share", "project \(project)", "--with", try PeersCommandTests.fingerprint(laptop), "--role", role,
                                        "--address", address])
        try #require(shared.status == 0, "\(shared.stderr)")
    }

    /// The laptop's `sync now` with the colleague's daemon.
    static func sync(_ laptop: CLIVault, with colleague: CLIVault) throws -> CLI.Result {
        let (daemon, address) = try ServeChannelTests.serve(colleague)
        defer { stop(daemon) }
        return try laptop.run(["sync", "now", "--peer", try PeersCommandTests.fingerprint(colleague), "--address", address])
    }

    @Test func anEditRefusedAfterADowngradeIsSetAsideKeptInABranchAndSentOnceTheLaptopEditsAgain() throws {
        let (colleague, laptop) = try PeersCommandTests.pairedVaults()  // trusted 'other' both ways
        #expect(try colleague.run(["project", "create", "Case", "--register", "general"]).status == 0)
        #expect(try colleague.run(["doc", "add", "Case", "Notes"]).status == 0)
        #expect(try colleague.run(["doc", "write", "Case", "Notes"], stdin: "Colleague first words.\n").status == 0)
        let project = try #require((try RepairCommandTests.json(try colleague.run(["project", "show", "Case", "--json"])))["id"] as? String)
        try Self.share(project, from: colleague, with: laptop, role: "editor")
        let first = try Self.sync(laptop, with: colleague)
        try #require(first.status == 0, "\(first.stdout) \(first.stderr)")

        // The paralegal writes on the laptop; before it syncs, the colleague makes the laptop a viewer.
        let written = try laptop.run(["doc", "write", project, "Notes"], stdin: "Colleague first words.\n\nThe paralegal's pending line.\n")
        try #require(written.status == 0, "\(written.stderr)")
        try Self.share(project, from: colleague, with: laptop, role: "viewer")

        // The run that meets the refusal says it once, plainly, with what to do; it did not wholly sync.
        let refused = try Self.sync(laptop, with: colleague)
        #expect(refused.status == 75, "\(refused.status) \(refused.stdout) \(refused.stderr)")
        #expect(refused.stdout.contains("made this device a viewer") && refused.stdout.contains("set aside"), "\(refused.stdout)")
        #expect(refused.stdout.contains("vaultctl conflicts") && refused.stdout.contains("ask the project's owner for editor rights"),
                "\(refused.stdout)")
        // The laptop shows the colleague's document; the words are in a sync-conflict branch.
        let shown = try laptop.run(["doc", "show", project, "Notes"])
        let colleagues = try colleague.run(["doc", "show", "Case", "Notes"])
        #expect(shown.status == 0 && shown.stdout == colleagues.stdout, "\(shown.stdout) vs \(colleagues.stdout)")
        #expect(!shown.stdout.contains("pending line"))
        let conflicts = try laptop.run(["conflicts", project])
        #expect(conflicts.stdout.contains("Notes") && conflicts.stdout.contains("refused"), "\(conflicts.stdout)")
        let kept = try laptop.run(["branch", "show", project, "Notes", "1"])
        #expect(kept.status == 0 && kept.stdout.contains("The paralegal's pending line."), "\(kept.stdout) \(kept.stderr)")
        // A later edit is still refused where it is made.
        #expect(try laptop.run(["doc", "write", project, "Notes"], stdin: "Another try.\n").status == 77)

        // Said by `sync status`, and the next run syncs (exit 0) while still naming it.
        let status = try laptop.run(["sync", "status"])
        #expect(status.stdout.contains("set aside") && status.stdout.contains("ask the project's owner for editor rights"), "\(status.stdout)")
        let again = try Self.sync(laptop, with: colleague)
        #expect(again.status == 0, "\(again.status) \(again.stdout) \(again.stderr)")
        #expect(again.stdout.contains("set aside"), "\(again.stdout)")
        let statusAfter = try laptop.run(["sync", "status"])
        #expect(statusAfter.stdout.contains("project \(project): syncs") && statusAfter.stdout.contains("set aside"), "\(statusAfter.stdout)")

        // The refusal is on the record on both sides.
        let refusedThere = try Self.actions(colleague, "sync.exchange-refused").filter { Self.detail($0, "reason") == "viewerCannotWrite" }
        #expect(!refusedThere.isEmpty)
        let refusedHere = try Self.actions(laptop, "sync.push-refused").filter { Self.detail($0, "reason") == "viewerCannotWrite" }
        #expect(refusedHere.count == 1, "\(refusedHere)")
        let setAside = try Self.actions(laptop, "sync.records-set-aside")
        #expect(setAside.count == 1 && Self.detail(setAside[0], "branches") == "1" && Self.detail(setAside[0], "peer") != nil, "\(setAside)")

        // Editor again: the same signed records go to the colleague, and every device shows the words.
        try Self.share(project, from: colleague, with: laptop, role: "editor")
        let restored = try Self.sync(laptop, with: colleague)
        #expect(restored.status == 0, "\(restored.status) \(restored.stdout) \(restored.stderr)")
        #expect(try colleague.run(["doc", "show", "Case", "Notes"]).stdout.contains("The paralegal's pending line."))
        #expect(try laptop.run(["doc", "show", project, "Notes"]).stdout.contains("The paralegal's pending line."))
        #expect(try Self.actions(laptop, "sync.records-put-back").count == 1)
        #expect(!(try laptop.run(["sync", "status"]).stdout.contains("set aside")))
    }
}
