import CryptoVault

/// The actions the appliance daemon records: its start and stop, refused connections, and each
/// request a local client makes of it (with the client's uid, SECURITY.md §10.6).
extension AuditAction {
    public static let daemonStart = AuditAction("daemon.start")
    public static let daemonStop = AuditAction("daemon.stop")
    public static let daemonRefused = AuditAction("daemon.refused")
    /// A request of the owner's local client, with the uid and pid the kernel gave for it.
    public static let applianceRequest = AuditAction("appliance.request")
}
