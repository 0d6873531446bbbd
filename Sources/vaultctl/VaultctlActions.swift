import CryptoVault

/// The actions vaultctl's own commands record (the daemon's are Appliance's).
extension AuditAction {
    static let compartmentShareRevoke = AuditAction("compartment.share-revoke")
    /// A vault restored from a backup file, recorded in the restored vault.
    static let vaultRestoreBackup = AuditAction("vault.restore-backup")
}
