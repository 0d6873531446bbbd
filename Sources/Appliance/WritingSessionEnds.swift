import AuditChain
import CryptoVault
import PrivilegedSession
import Writing

/// The end stamps of privileged writing sessions (SECURITY.md §15.5) that the daemon writes, so a
/// writing session it let this device start does not stay a start without an end:
/// - when one of its privileged processing sessions ends (`session end`, the console), this
///   device's open writing sessions in that compartment's projects end with it, stamped through it
///   before its keys go;
/// - when the daemon stops, every writing session of this device still open in a privileged project
///   ends, through a live session of the project's compartment, or, when none is left (it expired,
///   or the edits were made with `--purpose`), through a session opened for that alone and ended at
///   once (its start and end recorded as any session's, with the purpose below).
public struct WritingSessionEnds: Sendable {
    let vault: UnlockedVault

    /// The purpose of a session the daemon opens only to stamp the end of writing sessions.
    public static let purpose = "end the writing sessions still open as the daemon stops"

    public init(vault: UnlockedVault) { self.vault = vault }

    /// Ends this device's open writing sessions in the projects of `session`'s compartment.
    func ending(_ session: PrivilegedProcessingSession) throws {
        for project in try openProjects() where project.compartment.id == session.compartment.id {
            try end(project, through: session)
        }
    }

    /// The daemon stops: ends this device's open writing sessions in every privileged project,
    /// through one of `live` (the daemon's sessions, still open) where it can.
    func stopping(live: [PrivilegedProcessingSession]) throws {
        for project in try openProjects() where project.isPrivileged {
            if let session = live.last(where: { $0.compartment.id == project.compartment.id && $0.isHoldingKeys }) {
                try end(project, through: session)
                continue
            }
            let session = try PrivilegedProcessingSession.start(vault: vault, compartment: project.compartment,
                                                                actor: AuditLog.currentAccount(), purpose: Self.purpose)
            defer { try? session.end() }
            try end(project, through: session)
        }
    }

    /// The projects (not archived: an archived one changes nothing) in which this device has an open writing session.
    private func openProjects() throws -> [WritingProject] {
        try vault.transaction { tx in
            let store = WritingStore(tx)
            let ids = Set(try store.openWritingSessions().map(\.project))
            return try store.projects().filter { ids.contains($0.id) && !$0.isArchived }
        }
    }

    private func end(_ project: WritingProject, through session: PrivilegedProcessingSession) throws {
        try vault.transaction { tx in try WritingStore(tx, access: .session(session)).endWritingSessions(in: project.id, now: true) }
    }
}
