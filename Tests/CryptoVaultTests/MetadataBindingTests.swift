@testable import CryptoVault
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite("Metadata: privileged, register, name hash and KDF policy are bound to the master key")
struct MetadataBindingTests {
    func put(_ fixture: BundleFixture, _ text: String, in compartment: VaultCompartment) throws -> StoredBundle {
        let path = fixture.path(UUID().uuidString)
        try fixture.write(Array(text.utf8), to: path)
        return try fixture.unlocked.put(from: try FileDescriptor.openForReading(path), compartment: compartment,
                                        metadata: BundleMetadata(name: "x", modificationTime: 0))
    }

    @Test("privileged flipped to 0 outside vaultctl: the compartment is refused for its binding, its bundle is not read")
    func flippedPrivileged() throws {
        let fixture = try BundleFixture()
        let chart = try fixture.unlocked.createCompartment(named: "chart", register: .healthcare)
        let stored = try put(fixture, "diagnosis", in: chart)
        try fixture.vault.tamper("UPDATE compartments SET privileged = 0 WHERE id = \(chart.rowID)")
        let unlocked = try fixture.vault.reopen().unlock(with: .passphrase(fixture.vault.passphrase))
        #expect(errorCode { try unlocked.openStored(stored.bundleID) } == .corruptVault)
        #expect((errorMessage { try unlocked.compartment(named: "chart") } ?? "").contains("fails its binding"))
        // The other compartment is untouched and still works.
        #expect(try unlocked.compartment(named: "files").isPrivileged == false)
    }

    @Test("a register changed outside vaultctl is refused for the binding")
    func changedRegister() throws {
        let fixture = try BundleFixture()
        try fixture.vault.tamper("UPDATE compartments SET register = 'legal' WHERE id = \(fixture.compartment.rowID)")
        let unlocked = try fixture.vault.reopen().unlock(with: .passphrase(fixture.vault.passphrase))
        #expect(errorCode { try unlocked.compartment(named: "files") } == .corruptVault)
        #expect((errorMessage { try unlocked.compartment(named: "files") } ?? "").contains("fails its binding"))
    }

    @Test("two rows' name hashes swapped: a lookup of one name never returns the other compartment")
    func swappedNameHashes() throws {
        let fixture = try TestVault()
        let notes = try fixture.unlocked.createCompartment(named: "Session notes", register: .healthcare)
        let newsletter = try fixture.unlocked.createCompartment(named: "Newsletter", register: .general)
        // Swapped through a temporary value, as name_hash is UNIQUE.
        try fixture.tamper("""
            UPDATE compartments SET name_hash = randomblob(32) WHERE id = \(notes.rowID);
            UPDATE compartments SET name_hash = X'\(ByteEncoding.hex(try nameHash(fixture, "Session notes")))' WHERE id = \(newsletter.rowID);
            UPDATE compartments SET name_hash = X'\(ByteEncoding.hex(try nameHash(fixture, "Newsletter")))' WHERE id = \(notes.rowID);
            """)
        let unlocked = try fixture.reopen().unlock(with: .passphrase(fixture.passphrase))
        let message = errorMessage { try unlocked.compartment(named: "Session notes") } ?? ""
        #expect(errorCode { try unlocked.compartment(named: "Session notes") } == .corruptVault)
        #expect(message.contains("name hash is not its name's"), "\(message)")
        #expect(errorCode { try unlocked.compartment(named: "Newsletter") } == .corruptVault)
    }

    func nameHash(_ fixture: TestVault, _ name: String) throws -> [UInt8] {
        try CompartmentNameKeys(masterKey: fixture.unlocked.masterKey, vaultID: fixture.unlocked.vault.vaultID).lookupHash(name)
    }

    @Test("a vault from before bindings is bound on its first unlock, each binding recorded; after that an unbound row is refused")
    func legacyVaultIsBoundOnce() throws {
        let fixture = try TestVault()
        let chart = try fixture.unlocked.createCompartment(named: "chart", register: .healthcare)
        try fixture.tamper("""
            UPDATE compartments SET binding = NULL;
            DELETE FROM vault_meta WHERE key IN ('metadata_bound', 'kdf_policy_mac');
            """)
        let journal = RecordingJournal()
        let unlocked = try Vault.open(at: fixture.directory, journal: journal).unlock(with: .passphrase(fixture.passphrase))
        #expect(journal.actions == ["compartment.bind", "vault.bind-metadata", "vault.unlock"])
        let bind = try #require(journal.events.withLock { $0.first })
        #expect(bind.compartmentID == chart.id)
        #expect(bind.details == [.init("name", "chart"), .init("register", "healthcare"), .init("privileged", "yes")])
        #expect(try unlocked.compartment(named: "chart").isPrivileged)
        #expect(try unlocked.authenticatedKDFPolicy().policy == TestVault.fastKDF)

        // Bound now: a second unlock binds nothing, and a binding removed later is refused, not redone.
        let again = RecordingJournal()
        _ = try Vault.open(at: fixture.directory, journal: again).unlock(with: .passphrase(fixture.passphrase))
        #expect(again.actions == ["vault.unlock"])
        try fixture.tamper("UPDATE compartments SET binding = NULL, privileged = 0")
        let later = try fixture.reopen().unlock(with: .passphrase(fixture.passphrase))
        #expect(errorCode { try later.compartment(named: "chart") } == .corruptVault)
    }

    @Test("the create entry records the privileged flag")
    func createRecordsPrivileged() throws {
        let fixture = try TestVault()
        let journal = RecordingJournal()
        let unlocked = try Vault.open(at: fixture.directory, journal: journal).unlock(with: .passphrase(fixture.passphrase))
        _ = try unlocked.createCompartment(named: "Memo", register: .legal, privileged: false)
        let create = try #require(journal.events.withLock { $0.last })
        #expect(create.action.name == "compartment.create")
        #expect(create.details == [.init("name", "Memo"), .init("register", "legal"), .init("privileged", "no")])
    }

    // MARK: KDF policy

    static let strong = KDFParameters.argon2id(memoryKiB: 19_456, iterations: 3, parallelism: 1)

    @Test("a policy lowered or raised to the ceiling with sqlite3 changes no slot, and unlock still works with a warning",
          arguments: [KDFParameters.argon2id(memoryKiB: 19_456, iterations: 2, parallelism: 1),
                      KDFParameters.argon2id(memoryKiB: 262_144, iterations: 64, parallelism: 16)])
    func tamperedPolicy(policy: KDFParameters) throws {
        let fixture = try TestVault()
        try fixture.unlocked.setKDFPolicy(Self.strong)
        try fixture.tamper("UPDATE vault_meta SET value = '\(policy.encoded)' WHERE key = 'kdf_policy'")
        let before = try fixture.reopen().keyslots().map(\.kdf)
        let unlocked = try fixture.reopen().unlock(with: .passphrase(fixture.passphrase))
        #expect(try fixture.reopen().keyslots().map(\.kdf) == before)
        #expect(unlocked.unlockWarnings.contains { $0.contains("KDF policy fails authentication") }, "\(unlocked.unlockWarnings)")
    }

    @Test("a malformed policy does not make unlock fail; it upgrades nothing and is named")
    func malformedPolicy() throws {
        let fixture = try TestVault()
        try fixture.tamper("UPDATE vault_meta SET value = 'not json' WHERE key = 'kdf_policy'")
        let unlocked = try fixture.reopen().unlock(with: .passphrase(fixture.passphrase))
        #expect(try fixture.reopen().keyslots().map(\.kdf) == [.passwordHash(TestVault.fastKDF)])
        #expect(!unlocked.unlockWarnings.isEmpty)
        // passwd still works under a policy it cannot trust (it keeps at least the slot's own costs).
        try unlocked.changePassphrase(to: try SecureBytes(copying: Array("a new passphrase".utf8)))
        _ = try fixture.reopen().unlock(with: .passphrase(try SecureBytes(copying: Array("a new passphrase".utf8))))
    }

    @Test("an upgrade takes the larger of each parameter and never lowers one")
    func upgradePerParameter() {
        let slot = KDFParameters.argon2id(memoryKiB: 65_536, iterations: 2, parallelism: 4)
        #expect(slot.upgraded(toward: .argon2id(memoryKiB: 19_456, iterations: 3, parallelism: 1))
                == .argon2id(memoryKiB: 65_536, iterations: 3, parallelism: 4))
        #expect(slot.upgraded(toward: .argon2idFloor) == nil, "a weaker policy changes nothing")
        #expect(slot.upgraded(toward: slot) == nil)
        // Each within bounds, but together over the work ceiling: the slot stays.
        #expect(slot.upgraded(toward: .argon2id(memoryKiB: 2_097_152, iterations: 64, parallelism: 1)) == nil)
        #expect(KDFParameters.scryptFloor.upgraded(toward: .argon2idDefault) == .argon2idDefault)
        #expect(KDFParameters.argon2idDefault.upgraded(toward: .scryptFloor) == nil)
        #expect(KDFParameters.scrypt(log2N: 16, r: 8, p: 1).upgraded(toward: .scrypt(log2N: 15, r: 8, p: 2))
                == .scrypt(log2N: 16, r: 8, p: 2))
    }

    // MARK: Hostile keyslot rows

    @Test("a second passphrase row with parameters over the ceiling is skipped and named; the good row unlocks")
    func hostileRowIsSkipped() throws {
        let fixture = try TestVault()
        let hostile = KDFParameters.argon2id(memoryKiB: 2_097_152, iterations: 64, parallelism: 4)
        try fixture.tamper("""
            INSERT INTO keyslots (uuid, kind, kdf, salt, nonce, wrapped_key, created_at, updated_at)
            SELECT randomblob(16), kind, '\(hostile.encoded)', salt, nonce, wrapped_key, created_at, updated_at FROM keyslots;
            """)
        let unlocked = try fixture.reopen().unlock(with: .passphrase(fixture.passphrase))
        #expect(unlocked.unlockWarnings.contains { $0.contains("keyslot 2 is refused") && $0.contains("exceeds the ceiling") },
                "\(unlocked.unlockWarnings)")
        // passwd skips it too.
        try unlocked.changePassphrase(to: try SecureBytes(copying: Array("another passphrase".utf8)))
    }
}
