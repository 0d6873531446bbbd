@testable import AuditChain
@testable import CryptoVault
import Foundation
import Testing

@Suite struct VaultClockTests {
    @Test("the audit log dates its entries and its keys by the clock it is given, not by a second read of the system time")
    func injectedClockDatesEntriesAndKeys() throws {
        let root = NSTemporaryDirectory() + "vault-clock-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fixed = VaultClock { 1_700_000_000 }
        let unlocked = try Vault.create(at: root + "/vault", passphrase: try SecureBytes(copying: Array("clock passphrase".utf8)),
                                        kdf: .argon2idFloor, journal: AuditLog(clock: fixed))
        let entries = try AuditLogReader(vault: unlocked.vault).entries()
        #expect(!entries.isEmpty && entries.allSatisfy { $0.time == 1_700_000_000 })
        let keyTimes = try unlocked.vault.read { try $0.query("SELECT created_at FROM audit_signing_keys").map { try $0.integer("created_at") } }
        #expect(!keyTimes.isEmpty && keyTimes.allSatisfy { $0 == 1_700_000_000 }, "\(keyTimes)")
    }
}
