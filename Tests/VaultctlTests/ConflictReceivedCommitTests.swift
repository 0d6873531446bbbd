import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// A receive that brings a sync conflict makes a branch of it from a snapshot of the document as the
/// device shows it (SECURITY.md §19.3): that base is the device's own view, not an edit, so no record
/// carries it. Reviewer 20's F20-1: each such receive was followed by a record with no edit, and a
/// viewer of a project with a conflict signed one at its first sync, refused by the owner as a
/// viewer's write (`viewerCannotWrite`, exit 75) and told to it as "your edits ... set aside" for good.
/// Over the real binary, on loopback: desk and laptop are the owner's, the colleague a viewer.
@Suite(.serialized)
struct ConflictReceivedCommitTests {
    static func actions(_ vault: CLIVault) throws -> [String] {
        let log = try vault.run(["audit", "log", "--json"])
        let entries = try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
        return entries.compactMap { $0["action"] as? String }
    }

    static func count(_ action: String, _ vault: CLIVault) throws -> Int { try actions(vault).filter { $0 == action }.count }

    /// Two vaults paired through the CLI on loopback, each trusting the other as `trust`.
    static func pair(_ host: CLIVault, _ joining: CLIVault, trust: String) throws {
        let started = try PairCommandTests.startHost(host, ["--address", "127.0.0.1:0", "--trust", trust])
        let joined = try PairCommandTests.join(joining, started.address, code: started.code, extra: ["--trust", trust])
        let hosted = started.finish()
        try #require(joined.status == 0 && hosted.status == 0, "\(joined.stderr) \(hosted.stderr)")
    }

    /// The desk's project Conf, synced to the laptop, then one paragraph written on both and synced
    /// from the desk: one conflict. Returns the vaults, the project's id and the laptop's daemon.
    static func conflicted() throws -> (desk: CLIVault, laptop: CLIVault, project: String, laptopDaemon: CLI.Running, laptopAddress: String) {
        let desk = try CLIVault(), laptop = try CLIVault()
        try pair(desk, laptop, trust: "mine")
        for (arguments, input) in [(["project", "create", "Conf", "--register", "general"], nil), (["doc", "add", "Conf", "D1"], nil),
                                   (["doc", "write", "Conf", "D1"], "Base text.\n")] as [([String], String?)] {
            let made = try desk.run(arguments, stdin: input)
            try #require(made.status == 0, "\(arguments): \(made.stderr)")
        }
        let project = try #require((try RepairCommandTests.json(try desk.run(["project", "show", "Conf", "--json"])))["id"] as? String)
        let (daemon, address) = try ServeChannelTests.serve(laptop)
        let sync = ["sync", "now", "--peer", try PeersCommandTests.fingerprint(laptop), "--address", address]
        let first = try desk.run(sync)
        try #require(first.status == 0, "\(first.stderr)")
        #expect(try desk.run(["doc", "write", "Conf", "D1"], stdin: "Desk text.\n").status == 0)
        #expect(try laptop.run(["doc", "write", "Conf", "D1"], stdin: "Laptop text.\n").status == 0)
        let commits = try count("sync.record-commit", desk)
        let met = try desk.run(sync)
        try #require(met.status == 0, "\(met.stderr)")
        // The desk's edit and its join of the conflict (§19.3), nothing more: no record after the receive.
        let logged = try actions(desk)
        #expect(logged.filter { $0 == "sync.record-commit" }.count - commits == 2, "\(logged.suffix(12))")
        let open = try ConflictsCommandTests.json(try desk.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]]
        try #require(open?.count == 1, "\(String(describing: open))")
        return (desk, laptop, project, daemon, address)
    }

    @Test func aReceiveThatBringsAConflictIsFollowedByNoRecordOnEitherOwnDevice() throws {
        let f = try Self.conflicted()
        let before = (try Self.count("sync.record-commit", f.desk), try Self.count("sync.record-commit", f.laptop))
        // Nothing was typed since: the next sync sends and receives nothing (the laptop's branch base was one record, before).
        let again = try f.desk.run(["sync", "now", "--peer", try PeersCommandTests.fingerprint(f.laptop), "--address", f.laptopAddress])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("sent 0 record(s), received 0"), "\(again.stdout)")
        ViewOnlyCommandTests.stop(f.laptopDaemon)
        #expect(try Self.count("sync.record-commit", f.desk) == before.0)
        #expect(try Self.count("sync.record-commit", f.laptop) == before.1)
        // Each device still shows the conflict's branch, made from its own view.
        for vault in [f.desk, f.laptop] {
            let open = try ConflictsCommandTests.json(try vault.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]]
            #expect(open?.count == 1, "\(String(describing: open))")
        }
    }

    @Test func aViewerOfAProjectWithAConflictCommitsNothingAndIsRefusedNothing() throws {
        let f = try Self.conflicted()
        ViewOnlyCommandTests.stop(f.laptopDaemon)
        let colleague = try CLIVault()
        try Self.pair(f.desk, colleague, trust: "other")
        let (colleagueDaemon, colleagueAddress) = try ServeChannelTests.serve(colleague)
        let shared = try f.desk.run(["share", "project \(f.project)", "--with", try PeersCommandTests.fingerprint(colleague), "--role", "viewer",
                                     "--address", colleagueAddress])
        ViewOnlyCommandTests.stop(colleagueDaemon)
        try #require(shared.status == 0, "\(shared.stderr)")
        let (deskDaemon, deskAddress) = try ServeChannelTests.serve(f.desk)
        let sync = ["sync", "now", "--peer", try PeersCommandTests.fingerprint(f.desk), "--address", deskAddress]
        // The first sync (75 "refused 1 record(s) of your edits", before) and every later one: 0, nothing refused.
        for run in 0..<2 {
            let synced = try colleague.run(sync)
            #expect(synced.status == 0, "sync \(run): \(synced.status) \(synced.stdout) \(synced.stderr)")
            #expect(!(synced.stdout + synced.stderr).contains("your edits") && !(synced.stdout + synced.stderr).contains("refused"),
                    "sync \(run): \(synced.stdout) \(synced.stderr)")
        }
        ViewOnlyCommandTests.stop(deskDaemon)
        let status = try colleague.run(["sync", "status"])
        #expect(status.status == 0 && !status.stdout.contains("set aside"), "\(status.stdout) \(status.stderr)")
        #expect(try colleague.run(["doc", "show", "Conf", "D1"]).status == 0)
        // The viewer signed nothing, and neither log holds a refusal.
        let colleagueActions = try Self.actions(colleague)
        for action in ["sync.record-commit", "sync.push-refused", "sync.records-set-aside"] {
            #expect(!colleagueActions.contains(action), "the viewer's log holds \(action)")
        }
        let deskActions = try Self.actions(f.desk)
        for action in ["sync.exchange-refused", "sync.record-refused"] {
            #expect(!deskActions.contains(action), "the owner's log holds \(action)")
        }
    }
}
