import Foundation
import Testing
import TestSupport

/// The schema 11 vault made by main's vaultctl at d8e0c78 (two compartments, one stored bundle), as a
/// user of that release would bring it to this one.
@Suite("vaultctl on a vault made by an older release")
struct OlderVaultCommandTests {
    @Test("status refuses the schema 11 vault unchanged (exit 65); unlock upgrades it; ls, get and audit verify then work on it")
    func schema11VaultThroughTheCommands() throws {
        let fixture = try CLIVault(create: false)
        let copy = try PackageFiles.copyOfSchema11Vault()
        defer { try? FileManager.default.removeItem(atPath: copy.root) }
        try FileManager.default.moveItem(atPath: copy.directory, toPath: fixture.directory)
        try fixture.write(copy.passphrase + "\n", to: fixture.passphraseFile)

        let status = try fixture.run(["status"], unlock: false)
        #expect(status.status == 65 && status.stderr.contains("run a write command"), "\(status.stderr)")
        let unlocked = try fixture.run(["unlock"])
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let upgraded = try fixture.run(["status", "--json"], unlock: false)
        let report = try JSONSerialization.jsonObject(with: Data(upgraded.stdout.utf8)) as? [String: Any]
        #expect(upgraded.status == 0 && report?["schema_version"] as? Int == 13, "\(upgraded.stdout) \(upgraded.stderr)")

        let listed = try fixture.run(["ls"])
        #expect(listed.status == 0 && listed.stdout.contains("7a3daae0"), "\(listed.stdout) \(listed.stderr)")
        let got = try fixture.run(["get", "7a3daae0"])
        #expect(got.status == 0 && got.stdout.utf8.count == 22, "\(got.stderr)")
        let verified = try fixture.run(["audit", "verify"], unlock: false)
        #expect(verified.status == 0, "\(verified.stdout) \(verified.stderr)")
        let log = try fixture.run(["audit", "log"])
        #expect(log.stdout.contains("vault.upgrade"), "\(log.stdout)")
    }
}
