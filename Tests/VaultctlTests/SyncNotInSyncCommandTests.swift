import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// A project that no longer syncs is said so (attack review s8, F20), in the set-up of F6: the owner
/// shares a project with a colleague's device as editor, and once its history holds a leak-guard
/// finding (an e-mail address, written and synced) the owner's egress funnel keeps every later pull
/// of it. Before, the colleague's `sync now` printed "Left project …" and exited 0, and `sync status`
/// said the project "syncs"; so a nightly `vaultctl sync now || alert` never alerted. Now `sync now`
/// exits 75 naming the project, the device and the reason, and `sync status` says the project is NOT
/// IN SYNC with that device, and why.
@Suite(.serialized)
struct SyncNotInSyncCommandTests {
    static func stop(_ daemon: CLI.Running) {
        kill(daemon.process.processIdentifier, SIGTERM)
        daemon.process.waitUntilExit()
    }

    /// `sync now` on the colleague's laptop with the owner's desk, its daemon started for it.
    static func sync(_ laptop: CLIVault, with desk: CLIVault) throws -> CLI.Result {
        let (daemon, address) = try ServeChannelTests.serve(desk)
        defer { stop(daemon) }
        return try laptop.run(["sync", "now", "--peer", try PeersCommandTests.fingerprint(desk), "--address", address])
    }

    @Test func aSharedProjectTheOwnersFunnelKeepsExits75NamingItAndSyncStatusSaysItIsNotInSync() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        for arguments in [["project", "create", "Launch plan", "--register", "general"], ["doc", "add", "Launch plan", "Plan"]] {
            let made = try desk.run(arguments)
            try #require(made.status == 0, "\(arguments): \(made.stderr)")
        }
        try #require(try desk.run(["doc", "write", "Launch plan", "Plan"], stdin: "We launch in May.\n").status == 0)
        let project = try #require((try RepairCommandTests.json(try desk.run(["project", "show", "Launch plan", "--json"])))["id"] as? String)
        let deskFingerprint = try PeersCommandTests.fingerprint(desk)
        let (laptopDaemon, laptopAddress) = try ServeChannelTests.serve(laptop)
        let shared = try desk.run(["share", "project \(project)", "--with", try PeersCommandTests.fingerprint(laptop), "--role", "editor",
                                   "--address", laptopAddress])
        Self.stop(laptopDaemon)
        try #require(shared.status == 0, "\(shared.stderr)")

        // It syncs: exit 0, and sync status says so.
        let first = try Self.sync(laptop, with: desk)
        try #require(first.status == 0, "\(first.stdout) \(first.stderr)")
        #expect(try laptop.run(["doc", "show", "Launch plan", "Plan"]).stdout.contains("We launch in May."))
        let synced = try laptop.run(["sync", "status"])
        #expect(synced.status == 0 && synced.stdout.contains("project \(project): syncs"), "\(synced.stdout) \(synced.stderr)")

        // An e-mail address in the project's history (written, synced, then deleted): the owner's
        // funnel keeps the project's pulls from the colleague from then on.
        try #require(try desk.run(["doc", "write", "Launch plan", "Plan"], stdin: "We launch in May.\n\nQuestions to ada@example.org please.\n").status == 0)
        let found = try Self.sync(laptop, with: desk)
        try #require(try desk.run(["doc", "write", "Launch plan", "Plan"], stdin: "We launch in May.\n\nBudget approved.\n").status == 0)
        let left = try Self.sync(laptop, with: desk)
        for result in [found, left] {
            #expect(result.status == 75, "\(result.status): \(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains("Left project \(project) for this run: egressRefused"), "\(result.stdout)")
            #expect(result.stderr.contains("not every project synced: project \(project) with "), "\(result.stderr)")
            #expect(result.stderr.contains("left for the run: egressRefused"), "\(result.stderr)")
            #expect(result.stderr.contains("sync status"), "the hint names where it is kept: \(result.stderr)")
        }
        #expect(!(try laptop.run(["doc", "show", "Launch plan", "Plan"]).stdout.contains("Budget approved.")), "the pull was kept")

        // sync status names the project, the device and the reason, and never says it syncs.
        let status = try laptop.run(["sync", "status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(!status.stdout.contains("project \(project): syncs"), "\(status.stdout)")
        #expect(status.stdout.contains("project \(project): NOT IN SYNC with \(deskFingerprint)"), "\(status.stdout)")
        #expect(status.stdout.contains("left in the last sync with device \(deskFingerprint)") && status.stdout.contains("egressRefused"),
                "\(status.stdout)")
        #expect(status.stdout.contains("1 project(s) NOT IN SYNC with it"), "the device's line says it too: \(status.stdout)")
        let listed = try RepairCommandTests.json(try laptop.run(["sync", "status", "--json"]))
        let projects = try #require(listed["projects"] as? [[String: Any]], "\(listed)")
        let entry = try #require(projects.first { $0["project"] as? String == project }, "\(projects)")
        #expect(entry["syncs"] as? Bool == false && entry["state"] as? String == "ready", "\(entry)")
        let skipped = try #require(entry["skipped"] as? [[String: Any]], "\(entry)")
        #expect(skipped.count == 1 && (skipped.first?["reason"] as? String)?.hasPrefix("egressRefused") == true, "\(skipped)")
        let peers = try #require(listed["peers"] as? [[String: Any]], "\(listed)")
        #expect(peers.first?["projects_not_in_sync"] as? [String] == [project], "\(peers)")
    }

    /// What a script running `sync now` depends on (review 17 s8, F20's rest): an offer this vault
    /// refuses only by the owner's standing choice does not make every run "partial". The owner
    /// demotes the desk (`peers trust … other`); the desk still takes the laptop as its own and offers
    /// the owner's project at every run, refused here as not shared with it. Each run is said
    /// ("Declined project …") and exits 0; `sync status` says the project syncs and names the declined
    /// offer under it. (Before, each such run exited 75 for good.)
    @Test func anOfferDeclinedByTheOwnersChoiceIsNamedAndTheRunExits0() throws {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try PairCommandTests.startHost(desk, ["--address", "127.0.0.1:0", "--trust", "mine"])
        let joined = try PairCommandTests.join(laptop, host.address, code: host.code, extra: ["--trust", "mine"])
        let hosted = host.finish()
        try #require(joined.status == 0 && hosted.status == 0, "\(joined.stderr) \(hosted.stderr)")
        for arguments in [["project", "create", "Notes", "--register", "general"], ["doc", "add", "Notes", "Page"]] {
            let made = try laptop.run(arguments)
            try #require(made.status == 0, "\(arguments): \(made.stderr)")
        }
        try #require(try laptop.run(["doc", "write", "Notes", "Page"], stdin: "First line.\n").status == 0)
        let project = try #require((try RepairCommandTests.json(try laptop.run(["project", "show", "Notes", "--json"])))["id"] as? String)
        let first = try Self.sync(laptop, with: desk)
        try #require(first.status == 0, "\(first.stdout) \(first.stderr)")

        let deskFingerprint = try PeersCommandTests.fingerprint(desk)
        try #require(try laptop.run(["peers", "trust", "--peer", deskFingerprint, "other"]).status == 0)
        for run in 1...2 {
            let declined = try Self.sync(laptop, with: desk)
            #expect(declined.status == 0, "run \(run): \(declined.status): \(declined.stdout) \(declined.stderr)")
            #expect(declined.stdout.contains("Declined project \(project) offered by ") && declined.stdout.contains("notShared: not shared with that device"),
                    "run \(run): \(declined.stdout)")
            #expect(!declined.stderr.contains("not every project synced"), "run \(run): \(declined.stderr)")
        }
        let status = try laptop.run(["sync", "status"])
        #expect(status.status == 0 && status.stdout.contains("project \(project): syncs"), "\(status.stdout) \(status.stderr)")
        #expect(status.stdout.contains("its offer by device \(deskFingerprint) declined here since ") && status.stdout.contains("(your choice: not out of sync)"),
                "\(status.stdout)")
        let listed = try RepairCommandTests.json(try laptop.run(["sync", "status", "--json"]))
        let entry = try #require((listed["projects"] as? [[String: Any]])?.first { $0["project"] as? String == project }, "\(listed)")
        #expect(entry["syncs"] as? Bool == true && (entry["declined"] as? [[String: Any]])?.first?["reasons"] as? [String] == ["notShared"], "\(entry)")
    }
}
