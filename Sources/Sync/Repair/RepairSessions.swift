import CryptoVault
import PrivilegedSession
import Writing

/// The privileged sessions a repair reads in (actor `repair`): one for each compartment of the
/// privileged projects it mends, as every read of their sealed records and bases needs. The repair
/// ends them when it is done, whatever happens (`defer { sessions.end() }`).
struct RepairSessions {
    private var sessions: [CompartmentID: PrivilegedProcessingSession] = [:]

    /// Opens a session for each privileged project's compartment among `projects`; when one cannot
    /// open, those already open are ended before the error is thrown.
    init(for projects: [WritingProject], in vault: UnlockedVault, purpose: String) throws {
        do {
            for project in projects where project.isPrivileged && sessions[project.compartment.id] == nil {
                sessions[project.compartment.id] = try PrivilegedProcessingSession.start(vault: vault, compartment: project.compartment,
                                                                                         actor: "repair", purpose: purpose)
            }
        } catch {
            end()
            throw error
        }
    }

    /// Whether a session of `project`'s compartment is open in this repair.
    func isOpen(for project: WritingProject) -> Bool {
        sessions[project.compartment.id] != nil
    }

    /// How the writing store reads `project` in the repair: in its compartment's session when one is open.
    func access(for project: WritingProject?) -> RecordAccess {
        project.flatMap { sessions[$0.compartment.id] }.map { .session($0) } ?? .vault
    }

    func end() {
        for session in sessions.values { try? session.end() }
    }
}
