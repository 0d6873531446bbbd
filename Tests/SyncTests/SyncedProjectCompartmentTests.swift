import CryptoVault
@testable import Sync
import Testing
import TestSupport
import Writing

/// Which compartment a project made from an offer takes (rows14's leftover, session 14; SECURITY.md
/// §19.9): a compartment of this vault's own under the project's name that no project holds (one
/// `repair --from` dropped keeps its compartment, with its keys) is taken again when its privileged
/// flag is the offer's; one of the other flag never is, and with both names held so the project is
/// not made (`compartmentExists`, naming why, which refuses that offer alone in the exchange).
@Suite struct SyncedProjectCompartmentTests {
    static let modules = [WritingSchema.module, SyncSchema.module, SyncExchangeSchema.module]

    static func make(_ id: ProjectID, in vault: TestVault) throws -> WritingProject {
        try vault.unlocked.transaction { tx in
            try WritingStore(tx).addSyncedProject(id, named: "Memo", register: .general, kind: .document, privileged: false)
        }
    }

    @Test func anOwnCompartmentNoProjectHoldsIsTakenAgainWhenItsPrivilegedFlagIsTheOffers() throws {
        let vault = try TestVault(modules: Self.modules)
        let id = try ProjectID.random()
        let kept = try vault.unlocked.createCompartment(named: "project \(id.hex)", register: .general, privileged: false)
        #expect(try Self.make(id, in: vault).compartment.id == kept.id)
    }

    @Test func oneOfTheOtherFlagIsNeverTakenAndWithBothNamesHeldSoNothingIsMade() throws {
        let vault = try TestVault(modules: Self.modules)
        let id = try ProjectID.random()
        let privileged = try vault.unlocked.createCompartment(named: "project \(id.hex)", register: .general, privileged: true)
        let made = try Self.make(id, in: vault)
        #expect(made.compartment.id != privileged.id && made.compartment.name == "project \(id.hex) (synced)" && !made.compartment.isPrivileged)

        let other = try ProjectID.random()
        for name in ["project \(other.hex)", "project \(other.hex) (synced)"] {
            _ = try vault.unlocked.createCompartment(named: name, register: .general, privileged: true)
        }
        let refused = try #require(throws: CryptoVaultError.self) { try Self.make(other, in: vault) }
        #expect(refused.code == .compartmentExists && refused.message.contains("privileged compartment"), "\(refused)")
        #expect(try vault.unlocked.transaction { tx in try WritingStore(tx).projects() }.map(\.id) == [id])
    }
}
