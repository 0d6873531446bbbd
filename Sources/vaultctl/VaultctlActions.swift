import CryptoVault

/// The actions vaultctl's own commands and daemon record.
extension AuditAction {
    static let daemonStart = AuditAction("daemon.start")
    static let daemonStop = AuditAction("daemon.stop")
    static let daemonRefused = AuditAction("daemon.refused")
    static let compartmentShareRevoke = AuditAction("compartment.share-revoke")
    /// A vault restored from a backup file, recorded in the restored vault.
    static let vaultRestoreBackup = AuditAction("vault.restore-backup")
}
