import CryptoVault

/// The actions vaultctl's own commands record (the daemon's are Appliance's).
extension AuditAction {
    static let compartmentShareRevoke = AuditAction("compartment.share-revoke")
    /// A vault restored from a backup file, recorded in the restored vault.
    static let vaultRestoreBackup = AuditAction("vault.restore-backup")
    /// A vault rebuilt from the whole-vault copy a paired device kept, recorded in the rebuilt vault.
    static let vaultRecover = AuditAction("vault.recover")
}
