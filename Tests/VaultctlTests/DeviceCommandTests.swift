import Foundation
import Testing

/// `vaultctl device`: the identity is made once (unlocked), then shown without a passphrase.
struct DeviceCommandTests {
    static func json(_ result: CLI.Result) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func theIdentityIsMadeOnceRecordedAndShownWithoutAPassphraseAfterwards() throws {
        let vault = try CLIVault()
        let made = try vault.run(["device", "--json"])
        #expect(made.status == 0, "\(made.stderr)")
        let identity = try Self.json(made)
        let deviceID = try #require(identity["device_id"] as? String)
        #expect(deviceID.count == 32)
        #expect(identity["fingerprint"] as? String == stride(from: 0, to: 32, by: 8).map {
            String(Array(deviceID)[$0..<$0 + 8]) }.joined(separator: "-"))
        #expect((identity["signing_public_key"] as? String)?.count == 64 && (identity["noise_public_key"] as? String)?.count == 64)

        let shown = try vault.run(["device", "--json"], unlock: false)
        let shownIdentity = try Self.json(shown)
        #expect(shown.status == 0 && NSDictionary(dictionary: shownIdentity) == NSDictionary(dictionary: identity))
        let human = try vault.run(["device"], unlock: false)
        #expect(human.stdout.contains("Fingerprint  \(identity["fingerprint"] as? String ?? "?")"))

        let log = try vault.run(["audit", "log", "--json", "--action", "device.create"])
        let entries = try #require(JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 1 && entries.first?["subject"] as? String == deviceID)
        // The entry's device is the audit device id that `device` shows beside the key-derived one (§4.7.1).
        let auditDevice = try #require(identity["audit_device_id"] as? String)
        #expect(auditDevice.count == 32 && auditDevice != deviceID && entries.first?["device"] as? String == auditDevice, "\(entries)")
        #expect(human.stdout.contains("Audit device \(auditDevice)"))
    }

    /// `init` makes the identity with the vault, so a backup made before any pairing holds it and the
    /// vault restored from it is the same device to the owner's others (review 17 s12, N-s12-2 (b)).
    @Test func initMakesTheIdentityShownWithoutAPassphrase() throws {
        let vault = try CLIVault()
        let shown = try vault.run(["device", "--json"], unlock: false)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect((try Self.json(shown)["fingerprint"] as? String)?.count == 35, "\(shown.stdout)")
        let log = try #require(try JSONSerialization.jsonObject(with: Data(try vault.run(["audit", "log", "--json", "--action", "device.create"]).stdout.utf8)) as? [Any])
        #expect(log.count == 1)
        let verified = try vault.run(["audit", "verify", "--json"], unlock: false)
        let report = try Self.json(verified)
        #expect(verified.status == 0 && report["unsigned_entries"] as? Int == 0, "\(verified.stdout)")
    }

    /// A vault an older vaultctl made and never paired has no identity: making it needs the vault unlocked.
    @Test func makingTheIdentityNeedsTheVaultUnlocked() throws {
        let vault = try CLIVault()
        _ = try sqlite(vault.directory + "/vault.db", "DELETE FROM device_identity")
        let refused = try vault.run(["device", "--passphrase-file", vault.root + "/missing"], unlock: false)
        #expect(refused.status != 0 && refused.stdout.isEmpty)
        let wrong = vault.root + "/wrong"
        try vault.write("not the passphrase\n", to: wrong)
        let wrongResult = try vault.run(["device", "--passphrase-file", wrong], unlock: false)
        #expect(wrongResult.status == 2)
        let made = try vault.run(["device", "--json"])
        #expect(made.status == 0, "\(made.stderr)")
    }

    @Test("device rename: two paired machines both named after the host are told apart; renames are audited, a taken or unknown name refused")
    func renameTellsTwoMachinesApart() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let deskFingerprint = try PeersCommandTests.fingerprint(desk), laptopFingerprint = try PeersCommandTests.fingerprint(laptop)
        let sameName = try #require(try PairCommandTests.json(try desk.run(["device", "--json"])) as? [String: Any])["name"] as? String
        // Both vaults got the host's name: on the desk, that name is itself and the laptop.
        let ambiguous = try desk.run(["device", "rename", try #require(sameName), "desk"])
        #expect(ambiguous.status == 64 && ambiguous.stderr.contains("2 devices here are named") && ambiguous.stderr.contains(laptopFingerprint),
                "\(ambiguous.stderr)")
        let peer = try desk.run(["device", "rename", laptopFingerprint, "laptop", "--json"])
        #expect(peer.status == 0, "\(peer.stderr)")
        let answer = try #require(try PairCommandTests.json(peer) as? [String: Any])
        #expect(answer["old_name"] as? String == sameName && answer["name"] as? String == "laptop" && answer["this_device"] as? Bool == false)
        let own = try desk.run(["device", "rename", try #require(sameName), "desk"])
        #expect(own.status == 0 && own.stdout.contains("Renamed this device"), "\(own.stderr)")
        let identity = try #require(try PairCommandTests.json(try desk.run(["device", "--json"], unlock: false)) as? [String: Any])
        #expect(identity["name"] as? String == "desk" && identity["fingerprint"] as? String == deskFingerprint)
        let pairings = try #require(try PairCommandTests.json(try desk.run(["peers", "list", "--json"], unlock: false)) as? [[String: Any]])
        #expect(pairings.compactMap { ($0["peer"] as? [String: Any])?["name"] as? String } == ["laptop"])

        let taken = try desk.run(["device", "rename", "laptop", "desk"])
        #expect(taken.status == 73 && taken.stderr.contains("already named 'desk'"), "\(taken.stderr)")
        let unknown = try desk.run(["device", "rename", "nobody", "x"])
        #expect(unknown.status == 66 && unknown.stderr.contains("no device here has the name or fingerprint 'nobody'"), "\(unknown.stderr)")
        let invalid = try desk.run(["device", "rename", "laptop", String(repeating: "n", count: 65)])
        #expect(invalid.status != 0 && invalid.stderr.contains("1 to 64 bytes"), "\(invalid.stderr)")
        // The pinned keys did not change: the laptop still pings under its new name.
        let server = try PeersCommandTests.serveDesk(laptop)
        defer { server.stop() }
        let pinged = try desk.run(["peers", "ping", "--peer", "laptop", "--address", server.address.description])
        #expect(pinged.status == 0, "\(pinged.stderr)")
        let log = try #require(try PairCommandTests.json(try desk.run(["audit", "log", "--json", "--details", "--action", "device.rename"]))
                               as? [[String: Any]])
        #expect(log.compactMap { ($0["details"] as? [String: String])?["name"] } == ["laptop", "desk"], "\(log)")
    }
}
