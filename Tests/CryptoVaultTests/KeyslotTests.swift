@testable import CryptoVault
import Foundation
import Testing
import TestSupport

@Suite("Keyslots: passphrase, recovery key, recovery shares")
struct KeyslotTests {
    @Test("the passphrase unlocks; a wrong one is refused as a wrong passphrase")
    func passphraseUnlock() throws {
        let fixture = try TestVault()
        let vault = try fixture.reopen()
        let unlocked = try vault.unlock(with: .passphrase(fixture.passphrase))
        #expect(unlocked.masterKey == fixture.unlocked.masterKey)
        #expect(errorCode { try vault.unlock(with: .passphrase(try TestVault.secret("correct horse battery stapl"))) } == .wrongPassphrase)
        #expect(errorMessage { try vault.unlock(with: .passphrase(try TestVault.secret("nope nope nope"))) } == "wrong passphrase")
    }

    @Test("every passphrase slot is tried, so a second slot unlocks as well as the first")
    func everySlotTried() throws {
        let fixture = try TestVault()
        let second = try TestVault.secret("a second passphrase")
        try fixture.vault.withDatabase { database in
            try database.writeTransaction { try fixture.unlocked.insertPassphraseSlot(second, parameters: TestVault.fastKDF, in: database) }
        }
        let vault = try fixture.reopen()
        let slots = try vault.keyslots()
        #expect(try vault.unlock(with: .passphrase(second)).unlockedSlotID == slots[1].id)
        #expect(try vault.unlock(with: .passphrase(fixture.passphrase)).unlockedSlotID == slots[0].id)
    }

    @Test("unlock derives a KEK for every slot even when the first matches: no early exit to time")
    func noEarlyExit() throws {
        let fixture = try TestVault()
        for extra in ["second passphrase", "third passphrase"] {
            try fixture.vault.withDatabase { database in
                try database.writeTransaction {
                    try fixture.unlocked.insertPassphraseSlot(try TestVault.secret(extra), parameters: TestVault.fastKDF, in: database)
                }
            }
        }
        let vault = try fixture.reopen()
        let slots = try vault.keyslots()
        for (passphrase, expected) in [(fixture.passphrase, slots[0].id), (try TestVault.secret("wrong one"), nil)] {
            var derivations = 0
            let (opened, masterKey) = try vault.firstOpened(slots) { slot in
                derivations += 1
                return try vault.kek(forPassphrase: passphrase, slot: slot)
            }
            #expect(derivations == 3)
            #expect(opened?.id == expected)
            #expect((masterKey != nil) == (expected != nil))
        }
    }

    @Test("passwd rewrites the slot: the old passphrase stops working, the new one works, compartments survive")
    func changePassphrase() throws {
        let fixture = try TestVault()
        let compartment = try fixture.unlocked.createCompartment(named: "Notes", register: .healthcare)
        let keyBefore = try fixture.unlocked.compartmentKey(for: compartment, version: 1)
        let newPassphrase = try TestVault.secret("new and longer passphrase")
        let vault = try fixture.reopen()
        try vault.unlock(with: .passphrase(fixture.passphrase)).changePassphrase(to: newPassphrase)
        #expect(errorCode { try vault.unlock(with: .passphrase(fixture.passphrase)) } == .wrongPassphrase)
        let unlocked = try vault.unlock(with: .passphrase(newPassphrase))
        #expect(try unlocked.compartmentKey(for: try unlocked.compartment(named: "Notes"), version: 1) == keyBefore)
        #expect(try vault.keyslots().count == 1)
    }

    @Test("a weak slot is upgraded to the vault's policy on unlock and still opens")
    func upgradeOnUnlock() throws {
        let fixture = try TestVault()
        let stronger = KDFParameters.argon2id(memoryKiB: 19_456, iterations: 3, parallelism: 1)
        try fixture.unlocked.setKDFPolicy(stronger)
        let vault = try fixture.reopen()
        _ = try vault.unlock(with: .passphrase(fixture.passphrase))
        #expect(try vault.keyslots()[0].kdf == .passwordHash(stronger))
        _ = try vault.unlock(with: .passphrase(fixture.passphrase))
    }

    @Test("a keyslot whose KDF memory exceeds the ceiling is refused before anything is allocated")
    func hostileKDFParameters() throws {
        let fixture = try TestVault()
        let hostile = KDFParameters.argon2id(memoryKiB: 64 * 1_048_576, iterations: 3, parallelism: 4)
        try fixture.tamper("UPDATE keyslots SET kdf = '\(hostile.encoded)'")
        let vault = try fixture.reopen()
        let start = Date()
        let message = errorMessage { try vault.unlock(with: .passphrase(fixture.passphrase)) } ?? ""
        #expect(errorCode { try vault.unlock(with: .passphrase(fixture.passphrase)) } == .kdfParametersOutOfRange)
        #expect(message.contains("exceeds the ceiling"))
        #expect(Date().timeIntervalSince(start) < 1)
    }

    @Test("a hostile or damaged extra slot does not lock the owner out, and status names it")
    func hostileExtraSlot() throws {
        let fixture = try TestVault()
        let hostile = KDFParameters.argon2id(memoryKiB: 2 << 20, iterations: 64, parallelism: 16)
        try fixture.tamper("""
            INSERT INTO keyslots (uuid, kind, kdf, salt, nonce, wrapped_key, created_at, updated_at)
            SELECT randomblob(16), 'passphrase', '\(hostile.encoded)', salt, nonce, wrapped_key, 0, 0 FROM keyslots;
            INSERT INTO keyslots (uuid, kind, kdf, salt, nonce, wrapped_key, created_at, updated_at)
            SELECT randomblob(16), 'recovery-key', '{ "algorithm": "argon2id" }', salt, nonce, wrapped_key, 0, 0 FROM keyslots LIMIT 1;
            """)
        let vault = try fixture.reopen()
        _ = try vault.unlock(with: .passphrase(fixture.passphrase))
        let status = try vault.status()
        #expect(status.keyslots.count == 1)
        #expect(status.damagedKeyslots.count == 2)
        #expect(status.damagedKeyslots[0].contains("exceeds the ceiling"))
        #expect(status.damagedKeyslots[1].contains("unreadable KDF parameters"))
        let wrong = errorMessage { try vault.unlock(with: .passphrase(try TestVault.secret("not it at all"))) } ?? ""
        #expect(wrong.contains("keyslot 2 is refused") && wrong.contains("no other keyslot accepted the credential"))
    }

    @Test("a keyslot's parameters cannot be weakened behind its back: editing them breaks authentication")
    func kdfParametersAreBound() throws {
        let fixture = try TestVault()
        let edited = KDFParameters.argon2id(memoryKiB: 19_456, iterations: 2, parallelism: 2)
        try fixture.tamper("UPDATE keyslots SET kdf = '\(edited.encoded)'")
        #expect(errorCode { try fixture.reopen().unlock(with: .passphrase(fixture.passphrase)) } == .wrongPassphrase)
    }

    @Test("a recovery key unlocks; a second is refused as recoveryExists unless replacing, and a replaced one does not unlock")
    func recoveryKey() throws {
        let fixture = try TestVault()
        let first = try fixture.unlocked.createRecoveryKey()
        let vault = try fixture.reopen()
        #expect(try vault.unlock(with: .recoveryKey(first)).masterKey == fixture.unlocked.masterKey)
        #expect(errorCode { try fixture.unlocked.createRecoveryKey() } == .recoveryExists)
        _ = try vault.unlock(with: .recoveryKey(first))
        let second = try fixture.unlocked.createRecoveryKey(replacing: true)
        #expect(errorCode { try vault.unlock(with: .recoveryKey(first)) } == .wrongRecoveryKey)
        _ = try vault.unlock(with: .recoveryKey(second))
        #expect(try vault.keyslots().filter { $0.kind == .recoveryKey }.count == 1)
    }

    @Test("after unlocking with the recovery key, passwd replaces the forgotten passphrase")
    func passwdAfterRecovery() throws {
        let fixture = try TestVault()
        let recoveryKey = try fixture.unlocked.createRecoveryKey()
        let vault = try fixture.reopen()
        let newPassphrase = try TestVault.secret("remembered this time")
        try vault.unlock(with: .recoveryKey(recoveryKey)).changePassphrase(to: newPassphrase)
        #expect(errorCode { try vault.unlock(with: .passphrase(fixture.passphrase)) } == .wrongPassphrase)
        _ = try vault.unlock(with: .passphrase(newPassphrase))
        _ = try vault.unlock(with: .recoveryKey(recoveryKey))
    }

    @Test("any 2 of 3 shares unlock; one share, a repeated share or an old split do not")
    func recoveryShares() throws {
        let fixture = try TestVault()
        var files: [RecoveryShareFile] = []
        try fixture.unlocked.splitRecovery(threshold: 2, shares: 3) { files = $0 }
        let vault = try fixture.reopen()
        for pair in [[0, 1], [0, 2], [1, 2], [2, 0]] {
            let unlocked = try vault.unlock(with: .recoveryShares(pair.map { files[$0] }))
            #expect(unlocked.masterKey == fixture.unlocked.masterKey)
        }
        #expect(errorCode { try vault.unlock(with: .recoveryShares([files[1]])) } == .insufficientShares)
        #expect(errorCode { try vault.unlock(with: .recoveryShares([files[1], files[1]])) } == .invalidShare)
        var newer: [RecoveryShareFile] = []
        #expect(errorCode { try fixture.unlocked.splitRecovery(threshold: 2, shares: 3) { _ in Issue.record("delivered a refused split") } } == .recoveryExists)
        try fixture.unlocked.splitRecovery(threshold: 2, shares: 3, replacing: true) { newer = $0 }
        #expect(errorCode { try vault.unlock(with: .recoveryShares([files[0], files[1]])) } == .wrongRecoveryKey)
        #expect(errorCode { try vault.unlock(with: .recoveryShares([files[0], newer[1]])) } == .invalidShare)
        _ = try vault.unlock(with: .recoveryShares([newer[0], newer[2]]))
    }

    @Test("a failed delivery of share files keeps the previous split")
    func failedDeliveryRollsBack() throws {
        let fixture = try TestVault()
        var files: [RecoveryShareFile] = []
        try fixture.unlocked.splitRecovery(threshold: 2, shares: 2) { files = $0 }
        struct DiskFull: Error {}
        #expect(throws: DiskFull.self) { try fixture.unlocked.splitRecovery(threshold: 2, shares: 3, replacing: true) { _ in throw DiskFull() } }
        _ = try fixture.reopen().unlock(with: .recoveryShares(files))
    }

    @Test("a share altered in value is refused (by its check line, or by the keyslot when rewritten consistently)")
    func alteredShare() throws {
        let fixture = try TestVault()
        var files: [RecoveryShareFile] = []
        try fixture.unlocked.splitRecovery(threshold: 2, shares: 3) { files = $0 }
        var bytes = try files[0].serialized().exposedCopy()
        let valueStart = bytes.count - 24 - 65   // inside the value line
        bytes[valueStart] = bytes[valueStart] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
        #expect(errorCode { try RecoveryShareFile(parsing: try SecureBytes(copying: bytes)) } == .invalidShare)
        let forged = RecoveryShareFile(vaultID: files[0].vaultID, keyslotUUID: files[0].keyslotUUID, threshold: 2, shareCount: 3,
                                       share: SecretShare(index: 1, value: try SecureBytes.random(count: 32)))
        #expect(errorCode { try fixture.reopen().unlock(with: .recoveryShares([forged, files[1]])) } == .wrongRecoveryKey)
    }
}
