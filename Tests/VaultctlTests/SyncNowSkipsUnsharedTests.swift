import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// `vaultctl sync now` without --peer skips someone else's device that shares no project with this
/// vault, either way (F17-8): it has nothing to sync. Before, it was asked like any other, so the
/// command waited for its announcement and failed (74) when it was off. One that shares, either way,
/// is still asked; so is one named with --peer. The devices here are off (no daemon): a device asked
/// fails "did not announce itself", which is how these tests see that it was asked.
@Suite struct SyncNowSkipsUnsharedTests {
    /// `sync now` on `vault` with `extra`, listening 1 s for announcements on a port of its own.
    static func syncNow(_ vault: CLIVault, _ extra: [String] = []) throws -> CLI.Result {
        try vault.run(["sync", "now", "--seconds", "1", "--announcements", "127.0.0.1:\(Int.random(in: 20_000...60_000))"] + extra)
    }

    static func name(_ vault: CLIVault) throws -> String {
        try #require((try PairCommandTests.json(try vault.run(["device", "--json"])) as? [String: Any])?["name"] as? String)
    }

    @Test func someoneElsesDeviceSharingNothingIsSkippedAndSaidSoUnlessNamed() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let deskName = try Self.name(desk), deskFingerprint = try PeersCommandTests.fingerprint(desk)
        let text = try Self.syncNow(laptop)
        #expect(text.status == 0, "\(text.status) \(text.stderr)")
        #expect(text.stdout == "\(deskName): skipped: shares no project with this vault\n" && text.stderr.isEmpty, "\(text.stdout) \(text.stderr)")
        let json = try Self.syncNow(laptop, ["--json"])
        let peers = try #require((try PairCommandTests.json(json) as? [String: Any])?["peers"] as? [[String: Any]], "\(json.stdout)")
        #expect(peers.count == 1 && peers.first?["skipped"] as? String == "shares no project with this vault"
                && (peers.first?["peer"] as? [String: Any])?["fingerprint"] as? String == deskFingerprint, "\(peers)")
        // Named, it is asked all the same (the owner asked for it).
        let named = try Self.syncNow(laptop, ["--peer", deskFingerprint])
        #expect(named.status == 74 && named.stderr.contains("\(deskName) did not announce itself within 1 s"), "\(named.status) \(named.stderr)")
    }

    @Test func aDeviceSharingAProjectEitherWayIsStillAsked() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        #expect(try desk.run(["project", "create", "Brief", "--register", "general"]).status == 0)
        let projectID = try #require((try RepairCommandTests.json(try desk.run(["project", "show", "Brief", "--json"])))["id"] as? String)
        // The desk shares the project with the laptop (the grant reaches the laptop's daemon); then both are off.
        try ViewOnlyCommandTests.shareToView(projectID, from: desk, with: laptop)
        // The desk shares with the laptop: asked.
        let deskName = try Self.name(desk), laptopName = try Self.name(laptop)
        let fromDesk = try Self.syncNow(desk)
        #expect(fromDesk.status == 74 && fromDesk.stderr.contains("\(laptopName) did not announce itself"), "\(fromDesk.status) \(fromDesk.stderr)")
        // The laptop holds the desk's grant, its project not come yet: the first sync brings it, so the desk is asked.
        let fromLaptop = try Self.syncNow(laptop)
        #expect(fromLaptop.status == 74 && fromLaptop.stderr.contains("\(deskName) did not announce itself"), "\(fromLaptop.status) \(fromLaptop.stderr)")
        #expect(!fromLaptop.stdout.contains("skipped"), "\(fromLaptop.stdout)")
    }
}
