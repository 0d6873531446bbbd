import AuditChain
import CryptoVault
@testable import Sync
import Testing
import TestSupport
import Writing

/// How a vault came to hold a project (SECURITY.md §19.9; attack review s6, A12, and s7): what
/// decides whether an own device may say whose a project is, in an exchange and in a repair.
/// Made here: recorded when the project is made (`sync_projects_made_here`); made from an offer:
/// `sync_project_sources`; a project made before those tables: the vault's audit log says it.
@Suite struct ProjectProvenanceTests {
    typealias F = SyncExchangeFixture

    /// A project made as vaultctl and the console make one (`createProjectMadeHere`) is recorded as
    /// made here in its own transaction: known without any audit log (a test vault stores none).
    /// One made by the writing store alone, as before the table, has no row to say it.
    @Test func aProjectMadeHereIsRecordedSoWhenItIsMade() throws {
        let vault = try TestVault(modules: F.modules)
        let brief = try vault.unlocked.createProjectMadeHere(named: "Brief", register: .general, kind: .document)
        #expect(try ProjectProvenance.of(brief.id, in: vault.unlocked) == .madeHere)
        let older = try vault.unlocked.createWritingProject(named: "Older", register: .general, kind: .document)
        #expect(try ProjectProvenance.of(older.id, in: vault.unlocked) == .unknown, "no row, and no stored log to read")
    }

    /// The fallback for a vault whose projects were made before those tables (attack review s7: it
    /// was untested): a real, stored audit log read. A project made here (`writing.project-create`
    /// without `origin`), one made from a device's offer (`sync.project-added`, its `peer`), one the
    /// log never names; and a row, where there is one, is what is read.
    @Test func withoutARowTheAuditLogSaysHowAProjectCameHere() throws {
        let audited = try AuditedVault(modules: F.modules)
        let vault = audited.unlocked
        let desk = try DeviceID.random()
        let (made, synced) = try audited.command {
            try vault.transaction { tx -> (WritingProject, WritingProject) in
                let store = WritingStore(tx)
                let made = try store.createProject(named: "Made here", register: .general, kind: .document)
                let synced = try store.addSyncedProject(try ProjectID.random(), named: "From the desk", register: .general, kind: .document,
                                                        privileged: false)
                try tx.record(.syncProjectAdded, compartment: synced.compartment.id, subject: synced.id,
                              details: [.init("peer", desk.hex), .init("access", SyncAccess.mine.name)])
                return (made, synced)
            }
        }
        #expect(try ProjectProvenance.of(made.id, in: vault) == .madeHere)
        #expect(try ProjectProvenance.of(synced.id, in: vault) == .madeFromOffer(of: desk))
        #expect(try ProjectProvenance.of(try ProjectID.random(), in: vault) == .unknown)

        // The rows are read first: the log only where there is none.
        let other = try DeviceID.random()
        try vault.transaction { tx in try SyncExchangeStore(database: tx.database).setSource(of: synced.id, device: other, at: 1) }
        #expect(try ProjectProvenance.of(synced.id, in: vault) == .madeFromOffer(of: other))
    }
}
