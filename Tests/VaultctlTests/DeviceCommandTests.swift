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

    @Test func makingTheIdentityNeedsTheVaultUnlocked() throws {
        let vault = try CLIVault()
        let refused = try vault.run(["device", "--passphrase-file", vault.root + "/missing"], unlock: false)
        #expect(refused.status != 0 && refused.stdout.isEmpty)
        let wrong = vault.root + "/wrong"
        try vault.write("not the passphrase\n", to: wrong)
        let wrongResult = try vault.run(["device", "--passphrase-file", wrong], unlock: false)
        #expect(wrongResult.status == 2)
    }
}
