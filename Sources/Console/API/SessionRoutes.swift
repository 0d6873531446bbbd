import Appliance
import AuditChain
import Foundation
import PrivilegedSession
import Writing

/// Privileged processing sessions from the console: the daemon's own registry, so a session started
/// here is the one `vaultctl session list` shows, and the reverse.
struct SessionRoutes {
    let access: ProjectAccess
    var limits = SessionLimits.standard

    func list() throws -> [[String: Any]] {
        access.sessions.live().map { SessionListing.entry(for: $0.summary, limits: limits) }
    }

    /// `{project, purpose}`: a session of the project's compartment, recorded with its purpose (sealed).
    func start(_ body: JSONBody) throws -> [String: Any] {
        let project = try access.project(try body.string("project"))
        guard project.isPrivileged else { throw ConsoleError(.invalidBody, "this project is not privileged: it needs no session") }
        let purpose = try body.string("purpose")
        guard !purpose.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ConsoleError(.invalidBody, "a session needs a purpose") }
        let session = try startSession(for: project, purpose: purpose)
        return SessionListing.entry(for: session.summary, limits: limits)
    }

    @discardableResult
    func startSession(for project: WritingProject, purpose: String) throws -> PrivilegedProcessingSession {
        let session = try PrivilegedProcessingSession.start(vault: access.vault, compartment: project.compartment,
                                                            actor: AuditLog.currentAccount(), purpose: purpose, limits: limits)
        access.sessions.add(session)
        return session
    }

    func end(_ id: String) throws -> [String: Any] {
        let session = try access.sessions.session(id: id)
        try access.sessions.end(session)
        return ["ended": session.idString]
    }
}
