import Foundation

/// The one clock the vault reads for the times it stores: rows' `created_at` and the like, audit
/// entries, checkpoints and audit key epochs (integer seconds since the Unix epoch, UTC). A value, so
/// a test or a caller with its own time source passes another (`AuditLog(clock:)`).
public struct VaultClock: Sendable {
    public let now: @Sendable () -> Int64

    public init(_ now: @escaping @Sendable () -> Int64) { self.now = now }

    /// The system's wall clock.
    public static let system = VaultClock { Int64(Date().timeIntervalSince1970) }
}
