import CryptoVault
import Writing

/// A project this vault made itself, not from a peer's offer, is recorded so when it is made, in
/// the transaction that makes it (`sync_projects_made_here`, migration `exchange-7`; attack review
/// s7, the A12 fallback): whose project it is (§19.9) is then known from a row, as it is for a
/// project made from an offer (`sync_project_sources`), and the audit log is read only for
/// projects made before either table (`ProjectProvenance`). The exchange's tables are not the
/// writing store's, so a repair (§19.10) keeps the row. A vault that has not made the exchange's
/// tables (it does not sync) records nothing.
public enum ProjectsMadeHere {
    /// Records `project` as made here, in `transaction`.
    public static func record(_ project: ProjectID, in transaction: VaultTransaction, clock: VaultClock = .system) throws {
        let applied = try AppliedModuleMigrations.modules(in: transaction.database).filter { $0 == SyncExchangeSchema.module.module }.count
        guard applied == SyncExchangeSchema.module.migrations.count else { return }
        try SyncExchangeStore(database: transaction.database).setMadeHere(project, at: clock.now())
    }
}

extension UnlockedVault {
    /// Makes a project of the owner's own here (`WritingStore.createProject`: its compartment and
    /// `writing.project-create`) and records it as made here (`ProjectsMadeHere`), in one audited
    /// transaction. What every command that makes a project calls.
    public func createProjectMadeHere(named name: String, register: Register, kind: ProjectKind,
                                      privileged: Bool? = nil) throws -> WritingProject {
        try transaction { tx in
            let project = try WritingStore(tx).createProject(named: name, register: register, kind: kind, privileged: privileged)
            try ProjectsMadeHere.record(project.id, in: tx)
            return project
        }
    }
}
