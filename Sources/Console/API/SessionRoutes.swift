import Appliance
import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Writing

/// Privileged processing sessions from the console: the daemon's own registry, so a session started
/// here is the one `vaultctl session list` shows, and the reverse.
struct SessionRoutes {
    let access: ProjectAccess
    var limits = SessionLimits.standard

    func list() throws -> [[String: Any]] {
        access.sessions.live().map { session in
            SessionListing.entry(for: session.summary, limits: limits).merging(Self.timing(session.summary, limits)) { $1 }
        }
    }

    /// The live session a privileged project is read through, with its time left; null without one.
    func countdown(_ projectText: String) throws -> Any {
        let project = try access.project(projectText)
        guard project.isPrivileged, let session = try? access.sessions.newestSession(of: project.compartment) else { return NSNull() }
        return Self.timing(session.summary, limits)
    }

    /// Seconds until the session ends if nothing is read (`ends_in`: idle or the absolute limit,
    /// whichever comes first) and until it ends whatever happens (`hard_end_in`), for the page's
    /// countdown; each read or write through the session moves the idle end on.
    static func timing(_ summary: PrivilegedProcessingSession.Summary, _ limits: SessionLimits, now: Date = VaultClock.system.date()) -> [String: Any] {
        let hardEnd = summary.startedAt.addingTimeInterval(limits.absoluteLimit)
        let end = min(summary.lastUse.addingTimeInterval(limits.idleTimeout), hardEnd)
        let seconds = { (date: Date) in max(0, Int(date.timeIntervalSince(now).rounded(.down))) }
        return ["id": summary.idString, "ends_in": seconds(end), "hard_end_in": seconds(hardEnd), "idle_timeout": Int(limits.idleTimeout)]
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
