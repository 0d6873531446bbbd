import CryptoVault
import Foundation
import PrivilegedSession
import Synchronization

/// The privileged processing sessions a daemon holds for its owner (SECURITY.md §10.6). Sessions are
/// found by id or, for a read that names none, as the newest live session of the bundle's
/// compartment. Ended and expired sessions leave the registry, so nothing keeps their (wiped) keyrings.
public final class SessionRegistry: Sendable {
    private let sessions = Mutex<[PrivilegedProcessingSession]>([])
    /// The daemon's: the writing sessions a privileged session let this device edit end with it,
    /// and every one still open ends when the daemon stops (SECURITY.md §15.5).
    private let writingSessions: WritingSessionEnds?

    public init(writingSessions: WritingSessionEnds? = nil) {
        self.writingSessions = writingSessions
    }

    public func add(_ session: PrivilegedProcessingSession) {
        sessions.withLock { $0.append(session) }
    }

    /// The live sessions, oldest first, after ending those whose limits passed.
    public func live() -> [PrivilegedProcessingSession] {
        sweepExpired()
        return sessions.withLock { $0 }
    }

    /// The live session with this id (full hex, or a unique prefix of at least 6 digits).
    public func session(id: String) throws(ApplianceError) -> PrivilegedProcessingSession {
        let prefix = id.lowercased()
        let matches = live().filter { $0.idString.hasPrefix(prefix) }
        guard prefix.count >= 6, matches.count == 1, let match = matches.first else {
            throw ApplianceError(.noSession, matches.count > 1 && prefix.count >= 6
                                 ? "more than one session starts with \(prefix); give more of the id"
                                 : "no live session has the id \(id); see 'vaultctl session list'")
        }
        return match
    }

    /// The newest live session of `compartment`.
    public func newestSession(of compartment: VaultCompartment) throws(ApplianceError) -> PrivilegedProcessingSession {
        guard let session = live().last(where: { $0.compartment.id == compartment.id }) else {
            throw ApplianceError(.noSession, "no session is open for compartment '\(compartment.name)'")
        }
        return session
    }

    /// Ends a session (recording it) and forgets it. The writing sessions of its compartment's
    /// projects end first, stamped through it while it holds its keys; the session ends (and is
    /// wiped) even if that fails.
    public func end(_ session: PrivilegedProcessingSession, reason: SessionEndReason = .closed) throws {
        remove(session)
        let stamped = Result { try writingSessions?.ending(session) }
        try session.end(reason)
        try stamped.get()
    }

    /// Ends every session, as when the daemon stops, after ending every writing session still open
    /// in a privileged project. Each is wiped even if recording its end fails.
    public func endAll(reason: SessionEndReason) -> [Error] {
        let all = sessions.withLock { sessions in
            defer { sessions.removeAll() }
            return sessions
        }
        var failures: [Error] = []
        do { try writingSessions?.stopping(live: all) } catch { failures.append(error) }
        return failures + all.compactMap { session in
            do { try session.end(reason); return nil } catch { return error }
        }
    }

    /// Ends the sessions whose idle or absolute limit has passed; the daemon calls this on a timer so
    /// that keys go when the limit passes, not at the next request.
    @discardableResult
    public func sweepExpired() -> [(session: PrivilegedProcessingSession, reason: SessionEndReason)] {
        var ended: [(PrivilegedProcessingSession, SessionEndReason)] = []
        for session in sessions.withLock({ $0 }) {
            // A session whose end cannot be recorded has still wiped its keys; it leaves all the same.
            let reason = (try? session.endIfExpired()) ?? (session.isHoldingKeys ? nil : .closed)
            if let reason {
                remove(session)
                ended.append((session, reason))
            }
        }
        return ended
    }

    private func remove(_ session: PrivilegedProcessingSession) {
        sessions.withLock { $0.removeAll { $0 === session } }
    }
}
