@testable import AuditChain
@testable import CryptoVault
import Foundation
import Testing

// The audited transaction (SECURITY.md §8, "An operation and its entry"): a change and its audit
// entry commit together or not at all. The journal here is the real audit log, so "the entry" is a
// row of audit_entries in the same database as the change.

extension AuditAction {
    /// An action only these tests record, for a change of their own.
    static let testChange = AuditAction("test.change")
}

private struct BodyFailure: Error {}

@Suite("VaultTransaction: a change and its audit entry commit together or not at all")
struct VaultTransactionTests {
    final class Fixture {
        let root = NSTemporaryDirectory() + "vault-transaction-test-\(UUID().uuidString)"
        let unlocked: UnlockedVault

        init() throws {
            unlocked = try Vault.create(at: root + "/vault", passphrase: try SecureBytes(copying: Array("correct horse battery staple".utf8)),
                                        kdf: .argon2idFloor, journal: AuditLog())
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        var actions: [String] { get throws { try AuditLogReader(vault: unlocked.vault).entries().map(\.action) } }

        /// Whether the change the tests make (one vault_meta row) is in the database.
        func changeIsStored(_ key: String) throws -> Bool {
            try unlocked.vault.read { try $0.queryOne("SELECT value FROM vault_meta WHERE key = ?", [.text(key)]) != nil }
        }

        func change(_ key: String, in transaction: VaultTransaction) throws {
            try transaction.database.query("INSERT INTO vault_meta (key, value) VALUES (?, 'x')", [.text(key)])
            try transaction.record(.testChange, subject: Array(key.utf8), details: [.init("note", "kept sealed")])
        }
    }

    @Test("a transaction that returns commits its change and its entry, with the entry's compartment, subject and action")
    func committedChangeHasItsEntry() throws {
        let fixture = try Fixture()
        let before = try fixture.actions
        try fixture.unlocked.transaction { try fixture.change("committed", in: $0) }
        #expect(try fixture.changeIsStored("committed"))
        #expect(try fixture.actions == before + ["test.change"])
        let entry = try #require(try AuditLogReader(vault: fixture.unlocked.vault).entries().last)
        #expect(entry.subjectID == Array("committed".utf8))
        #expect(try AuditLogReader.details(of: entry, vaultID: fixture.unlocked.vault.vaultID, keys: fixture.unlocked.auditKeys())
                == [.init("note", "kept sealed")])
    }

    @Test("a body that throws after changing and recording rolls back both: no change, no entry, and the body's error comes out")
    func throwingRollsBackChangeAndEntry() throws {
        let fixture = try Fixture()
        let before = try fixture.actions
        #expect(throws: BodyFailure.self) {
            try fixture.unlocked.transaction { transaction in
                try fixture.change("rolled-back", in: transaction)
                throw BodyFailure()
            }
        }
        #expect(try !fixture.changeIsStored("rolled-back"))
        #expect(try fixture.actions == before)
        // The log is still whole: the next transaction's entry follows the last committed one.
        try fixture.unlocked.transaction { try fixture.change("after", in: $0) }
        #expect(try fixture.actions == before + ["test.change"])
        #expect(try AuditLogReader(vault: fixture.unlocked.vault).verify().entryCount == before.count + 1)
    }

    @Test("a transaction kept past its body refuses to record (transactionClosed): its entry could commit with nothing")
    func escapedTransactionRefusesToRecord() throws {
        let fixture = try Fixture()
        let escaped = try fixture.unlocked.transaction { $0 }
        let before = try fixture.actions
        let error = try #require(throws: CryptoVaultError.self) { try escaped.record(.testChange) }
        #expect(error.code == .transactionClosed)
        #expect(try fixture.actions == before)
    }

    @Test("inside a body, reads see the transaction's own changes, and a vault write of its own is refused (nestedTransaction) instead of committing apart")
    func nestedWriteIsRefusedAndReadsJoin() throws {
        let fixture = try Fixture()
        let compartment = try fixture.unlocked.createCompartment(named: "Memos", register: .legal, privileged: false)
        let before = try fixture.actions
        let error = try #require(throws: CryptoVaultError.self) {
            try fixture.unlocked.transaction { transaction in
                try fixture.change("nested", in: transaction)
                #expect(try fixture.changeIsStored("nested"))
                #expect(try fixture.unlocked.compartment(named: "Memos").id == compartment.id)
                _ = try fixture.unlocked.createCompartment(named: "Second", register: .legal, privileged: false)
            }
        }
        #expect(error.code == .nestedTransaction)
        #expect(try !fixture.changeIsStored("nested"))
        #expect(try fixture.actions == before)
        #expect(try fixture.unlocked.compartments().map(\.name) == ["Memos"])
    }
}
