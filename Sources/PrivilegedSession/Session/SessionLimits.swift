import Foundation

/// How long a privileged processing session may live: it ends after `idleTimeout` without a read,
/// and after `absoluteLimit` whatever happens, so a forgotten session cannot hold keys all day.
public struct SessionLimits: Sendable, Equatable {
    public var idleTimeout: TimeInterval
    public var absoluteLimit: TimeInterval

    /// 5 minutes idle (the default), 60 minutes in all.
    public static let standard = SessionLimits(idleTimeout: 5 * 60, absoluteLimit: 60 * 60)

    public init(idleTimeout: TimeInterval, absoluteLimit: TimeInterval) {
        self.idleTimeout = idleTimeout
        self.absoluteLimit = absoluteLimit
    }

    /// Why a session started at `start` and last used at `lastUse` must end at `now`, if it must.
    func expiry(start: Date, lastUse: Date, now: Date) -> SessionEndReason? {
        if now.timeIntervalSince(start) >= absoluteLimit { return .absoluteLimit }
        if now.timeIntervalSince(lastUse) >= idleTimeout { return .idleTimeout }
        return nil
    }
}

/// Why a session ended, as its audit record says.
public enum SessionEndReason: String, Sendable {
    case closed = "closed"
    case idleTimeout = "idle-timeout"
    case absoluteLimit = "absolute-limit"
    /// The daemon holding the session stopped (SIGTERM, Ctrl-C).
    case daemonStopped = "daemon-stopped"
}
