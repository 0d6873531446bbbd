import Appliance
import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// It always launches (issue 17): the sync exchange's own tables damaged in the database file (roster
/// keys altered, the forks table dropped) make `vaultctl sync status` say sync is off and
/// why, `vaultctl sync now` refuse with that reason, and `vaultctl repair` (no --from) mend them,
/// recorded, after which sync works again and the audit log verifies; over the real channel.
@Suite(.serialized)
struct RepairExchangeCommandTests {
    static func json(_ result: CLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stderr)")
    }

    @Test func damagedExchangeTablesAreShownLocalOnlyRefusedBySyncNowAndMendedByRepair() throws {
        let f = try SyncOverNetworkFixture()
        // A connection of its own, closed (and its log checkpointed) before vaultctl opens the vault.
        // Damage within the columns' CHECK constraints (a row breaking one makes the whole database
        // fail the vault's open check): roster keys that do not derive their device ids, a table gone.
        try Database(path: f.laptop.directory + "/vault.db", create: false).execute("""
            UPDATE sync_roster SET signing_key = randomblob(32) WHERE noise_key IS NOT NULL;
            DROP TABLE sync_forks;
            """)

        let status = try f.hosts.run(.laptop, f.laptop, ["sync", "status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("Sync is off, every project LOCAL-ONLY: sync state is damaged:"), "\(status.stdout)")
        #expect(status.stdout.contains("project \(f.project.hex): LOCAL-ONLY: sync state is damaged"), "\(status.stdout)")
        let listed = try Self.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let exchange = try #require(listed["exchange"] as? [String: Any])
        #expect(exchange["state"] as? String == "local-only" && (exchange["reason"] as? String)?.contains("sync_") == true, "\(exchange)")

        let refused = try f.sync()
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("sync state is damaged") && refused.stderr.contains("vaultctl repair"), "\(refused.stderr)")

        let mended = try f.hosts.run(.laptop, f.laptop, ["repair"])
        #expect(mended.status == 0, "\(mended.stderr)")
        #expect(mended.stdout.contains("Made sync_forks again") && mended.stdout.contains("damaged row(s) of sync_roster"), "\(mended.stdout)")
        let again = try f.hosts.run(.laptop, f.laptop, ["repair", "--json"])
        #expect(try Self.json(again)["mended"] as? Bool == false)

        let ready = try Self.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        #expect((ready["exchange"] as? [String: Any])?["state"] as? String == "ready")
        #expect((ready["projects"] as? [[String: Any]])?.first?["state"] as? String == "ready", "\(ready)")
        let synced = try f.sync()
        #expect(synced.status == 0, "\(synced.stderr)")
        let audit = try f.laptop.run(["audit", "log", "--json"])
        #expect(audit.stdout.contains("sync.exchange-mended"), "\(audit.stderr)")
        #expect(try f.laptop.run(["audit", "verify"], unlock: false).status == 0)
    }
}
