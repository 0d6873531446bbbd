import CryptoVault

/// The actions PrivilegedSession records: sessions, egress decisions and refused sharing.
extension AuditAction {
    public static let sessionStart = AuditAction("session.start")
    public static let sessionRead = AuditAction("session.read")
    public static let sessionEnd = AuditAction("session.end")
    /// An egress decision (SECURITY.md §10.5).
    public static let egressDecision = AuditAction("egress.decision")
    public static let shareRefused = AuditAction("share.refused")
}
