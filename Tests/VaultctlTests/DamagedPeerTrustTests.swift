import CryptoVault
import Foundation
import Testing
import TestSupport

/// A paired device's trust level damaged past its CHECK (attack review s8, F10: a disk error made one
/// `peer_trust` value unknown, and every egress and every sync then failed with "the vault database is
/// damaged", with no command to mend it; written past the CHECK, the vault did not even open). Now
/// the level reads as `other` (grants nothing) with a warning naming the device, `peers trust`
/// overwrites it (recorded, previous "damaged") and `peers revoke` deletes it.
@Suite(.serialized)
struct DamagedPeerTrustTests {
    static func damage(_ vault: CLIVault) throws {
        try Database(path: vault.directory + "/vault.db", create: false)
            .execute("PRAGMA ignore_check_constraints = ON; UPDATE peer_trust SET trust = 'x'")
    }

    static func trustEntries(_ vault: CLIVault) throws -> [[String: String]] {
        let log = try vault.run(["audit", "log", "--json", "--details", "--action", "peer.trust"])
        return try #require(try PairCommandTests.json(log) as? [[String: Any]], "\(log.stderr)").compactMap { $0["details"] as? [String: String] }
    }

    @Test func aDamagedTrustLevelReadsAsOtherWithAWarningAndPeersTrustOverwritesIt() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let laptopFingerprint = try PeersCommandTests.fingerprint(laptop)
        try ExportCommandTests.harbour(desk)
        try Self.damage(desk)

        // An egress still runs, and says which device's level is damaged and what sets it again.
        let exported = try desk.run(["export", "Harbour", "--format", "md", "-o", desk.root + "/harbour.md"])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stderr.contains("vaultctl: warning: the trust level stored for device ") && exported.stderr.contains(laptopFingerprint)
                && exported.stderr.contains("is damaged: it is read as 'other' (grants nothing) until 'vaultctl peers trust --peer \(laptopFingerprint) mine|other'"),
                "\(exported.stderr)")
        let listed = try desk.run(["peers", "list", "--json"], unlock: false)
        #expect(listed.status == 0 && listed.stderr.contains(laptopFingerprint), "\(listed.stderr)")
        #expect(try #require(try PairCommandTests.json(listed) as? [[String: Any]]).map { $0["trust"] as? String } == ["other"])

        let fixed = try desk.run(["peers", "trust", "--peer", laptopFingerprint, "other"])
        #expect(fixed.status == 0 && fixed.stdout.contains("is now someone else's device"), "\(fixed.stdout) \(fixed.stderr)")
        let entries = try Self.trustEntries(desk)
        #expect(entries.last?["previous"] == "damaged" && entries.last?["trust"] == "other", "\(entries)")
        let after = try desk.run(["export", "Harbour", "--format", "md", "-o", desk.root + "/again.md"])
        #expect(after.status == 0 && !after.stderr.contains("warning"), "\(after.stderr)")
        // The CHECK binds the level written: the vault is whole again.
        #expect(try Database(path: desk.directory + "/vault.db", create: false).query("PRAGMA quick_check").map { try $0.text("quick_check") } == ["ok"])
    }

    @Test func revokeDeletesADamagedTrustLevelAndPairingAgainTrustsAfresh() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let laptopFingerprint = try PeersCommandTests.fingerprint(laptop)
        try Self.damage(desk)
        let revoked = try desk.run(["peers", "revoke", "--peer", laptopFingerprint])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let rows = try Database(path: desk.directory + "/vault.db", create: false).query("SELECT count(*) AS rows FROM peer_trust")
        #expect(try rows.first?.integer("rows") == 0)
        #expect(try Database(path: desk.directory + "/vault.db", create: false).query("PRAGMA quick_check").map { try $0.text("quick_check") } == ["ok"])

        // Paired again (the laptop forgets the desk too): the level chosen now stands.
        #expect(try laptop.run(["peers", "revoke", "--peer", try PeersCommandTests.fingerprint(desk)]).status == 0)
        let host = try PairCommandTests.startHost(desk, ["--address", "127.0.0.1:0", "--trust", "mine"])
        let joined = try PairCommandTests.join(laptop, host.address, code: host.code)
        let hosted = host.finish()
        #expect(joined.status == 0 && hosted.status == 0, "\(joined.stderr) \(hosted.stderr)")
        #expect(try #require(try PairCommandTests.json(try desk.run(["peers", "list", "--json"], unlock: false)) as? [[String: Any]])
            .map { $0["trust"] as? String } == ["mine"])
        let entries = try Self.trustEntries(desk)
        #expect(entries.last?["previous"] == "none" && entries.last?["trust"] == "mine", "\(entries)")
    }
}
