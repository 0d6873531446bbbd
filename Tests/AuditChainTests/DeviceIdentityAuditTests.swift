@testable import AuditChain
@testable import CryptoVault
import Foundation
import Testing

/// The two device ids (SECURITY.md §4.7.1): audit entries carry the random `vault_meta.device_id`;
/// peers pin the key-derived `DeviceProfile` id; the vault's own `device.create` entry links them.
@Suite struct DeviceIdentityAuditTests {
    @Test("the device.create entry is made by the audit device id and names the key-derived device id as its subject")
    func deviceCreateLinksTheTwoIDs() throws {
        let root = NSTemporaryDirectory() + "device-ids-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let passphrase = try SecureBytes(copying: Array("device id passphrase".utf8))
        let unlocked = try Vault.create(at: root + "/vault", passphrase: passphrase, kdf: .argon2idFloor, journal: AuditLog())
        let profile = try unlocked.deviceKeys(nameIfNew: "front-desk").profile
        let auditDevice = try unlocked.vault.auditDeviceID()
        #expect(auditDevice.count == 16 && auditDevice != profile.deviceID.bytes, "two ids, unrelated by derivation")

        let entries = try AuditLogReader(vault: unlocked.vault).entries()
        #expect(entries.allSatisfy { $0.deviceID == auditDevice }, "every entry carries the audit device id")
        let created = try #require(entries.first { $0.action == AuditAction.deviceCreate.name })
        #expect(created.subjectID == profile.deviceID.bytes)
        #expect(try AuditLogReader(vault: unlocked.vault).verify().entryCount == entries.count)
    }
}
