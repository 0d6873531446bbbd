import CryptoVault

/// The actions AuditChain's users record about the log itself.
extension AuditAction {
    public static let auditVerify = AuditAction("audit.verify")
    public static let auditExport = AuditAction("audit.export")
}
