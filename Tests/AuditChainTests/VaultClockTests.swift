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

@Suite struct VaultClockReadingsTests {
    @Test("one clock, three readings: whole seconds as stored, the fraction for milliseconds and dates, a forward-only clock for lifetimes; each test clock replaces only its own reading")
    func readings() {
        let wall = VaultClock.fractional { 1_700_000_000.75 }
        #expect(wall.now() == 1_700_000_000 && wall.milliseconds() == 1_700_000_000_750)
        #expect(wall.date() == Date(timeIntervalSince1970: 1_700_000_000.75))
        let whole = VaultClock { 1_700_000_001 }
        #expect(whole.precise() == 1_700_000_001 && whole.milliseconds() == 1_700_000_001_000)
        #expect(VaultClock.fractional { -5 }.milliseconds() == 0)

        let lifetime = VaultClock.forwardOnly { 42 }
        #expect(lifetime.monotonic() == 42)
        let before = Int64(Date().timeIntervalSince1970)
        #expect((before...(before + 60)).contains(lifetime.now()), "the wall clock stays the system's")
        #expect(whole.monotonic() != 42 && wall.monotonic() >= 0)
    }
}
