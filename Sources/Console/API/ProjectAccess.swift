import Appliance
import CryptoVault
import PrivilegedSession
import Writing

/// How the console reads a project (the rule vaultctl's commands follow in the daemon): an ordinary
/// project with the vault's own access; a privileged one only through the newest live session of its
/// compartment in the daemon's registry, started from the console or with 'vaultctl session start'.
/// Without one, nothing of the project is shown (423, "start a session").
struct ProjectAccess: Sendable {
    let vault: UnlockedVault
    let sessions: SessionRegistry
    /// The time the writing model reads (snapshots' and edits' times, the automatic snapshots' rule).
    var clock: VaultClock = .system

    func access(for project: WritingProject) -> RecordAccess? {
        guard project.isPrivileged else { return .vault }
        return (try? sessions.newestSession(of: project.compartment)).map { .session($0) }
    }

    /// Runs `body` in one audited transaction with a store that may read `project`.
    func store<Result>(for project: WritingProject, _ body: (WritingStore) throws -> Result) throws -> Result {
        guard let access = access(for: project) else {
            throw ConsoleError(.sessionRequired, "this project is privileged: start a session with a purpose to open it")
        }
        do {
            return try vault.transaction { tx in try body(WritingStore(tx, access: access, clock: clock)) }
        } catch {
            // A project waiting since its restore: the refusal names the devices awaited, as vaultctl's does.
            throw RestoreWaitRefusal.named(error, for: project, in: vault)
        }
    }

    func projects() throws -> [WritingProject] { try vault.transaction { tx in try WritingStore(tx).projects() } }

    func project(_ text: String) throws -> WritingProject {
        guard let id = try? ProjectID(hex: text), let project = try projects().first(where: { $0.id == id }) else {
            throw ConsoleError(.notFound, "no such project")
        }
        return project
    }

    /// The project's name, or nil while it is privileged and no session is open.
    func name(of project: WritingProject) throws -> String? {
        guard let access = access(for: project) else { return nil }
        return try vault.transaction { tx in try WritingStore(tx, access: access).name(of: project) }
    }

    /// `name(of:)` for a listing or a project's page: a name that does not open is that project's
    /// damage (R15-8), handed back so the other projects, and this one's documents, still show.
    func listedName(of project: WritingProject) throws -> Result<String?, DamagedProjectName> {
        try DamagedProjectName.listed(project.id) { try name(of: project) }
    }
}
