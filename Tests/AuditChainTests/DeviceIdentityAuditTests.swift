@testable import AuditChain
@testable import CryptoVault
import Foundation
import Testing

/// The two device ids (SECURITY.md §4.7.1, §8.1): audit entries carry the random `vault_meta.device_id`
/// (`AuditDeviceID`); peers pin the key-derived `DeviceProfile` id (`DeviceID`); the vault's own
/// `device.create` entry links them.
@Suite struct DeviceIdentityAuditTests {
    @Test("the device.create entry is made by the audit device id and names the key-derived device id as its subject")
    func deviceCreateLinksTheTwoIDs() throws {
        let root = NSTemporaryDirectory() + "device-ids-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let passphrase = try SecureBytes(copying: Array("device id passphrase".utf8))
        let unlocked = try Vault.create(at: root + "/vault", passphrase: passphrase, kdf: .argon2idFloor, journal: AuditLog())
        let profile = try unlocked.deviceKeys(nameIfNew: "front-desk").profile
        let auditDevice = try unlocked.vault.auditDeviceID()
        #expect(auditDevice.bytes != profile.deviceID.bytes, "two ids, unrelated by derivation")

        let entries = try AuditLogReader(vault: unlocked.vault).entries()
        #expect(entries.allSatisfy { $0.deviceID == auditDevice }, "every entry carries the audit device id")
        let created = try #require(entries.first { $0.action == AuditAction.deviceCreate.name })
        #expect(created.subjectID == profile.deviceID.bytes)
        #expect(try AuditLogReader(vault: unlocked.vault).verify().entryCount == entries.count)
    }

    @Test("read back from disk with no key, the one device.create entry names the vault's stored audit device id as its device field (bytes 17-32 of its encoding, what an export shows) and, as its subject, the stored DeviceProfile's id, which its public keys derive")
    func theLinkIsInTheStoredLog() throws {
        let root = NSTemporaryDirectory() + "device-link-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let passphrase = try SecureBytes(copying: Array("device link passphrase".utf8))
        let unlocked = try Vault.create(at: root + "/vault", passphrase: passphrase, kdf: .argon2idFloor, journal: AuditLog())
        _ = try unlocked.deviceKeys(nameIfNew: "front-desk")
        _ = try unlocked.deviceKeys(named: "reception")

        let vault = try Vault.openReadOnly(at: root + "/vault")
        let profile = try #require(try vault.deviceProfile())
        let auditDevice = try vault.auditDeviceID()
        #expect(profile.deviceID == DeviceProfile.deriveIdentifier(signingPublicKey: profile.signingPublicKey,
                                                                  noisePublicKey: profile.noisePublicKey))
        let created = try AuditLogReader(vault: vault).entries().filter { $0.action == AuditAction.deviceCreate.name }
        try #require(created.count == 1, "the keys are made once; a rename is device.rename")
        let link = created[0]
        #expect(link.deviceID == auditDevice)
        #expect(Array(link.encoded()[17..<33]) == auditDevice.bytes, "the device field of the encoded entry (§8.2)")
        #expect(try DeviceID(bytes: link.subjectID) == profile.deviceID)
    }
}
