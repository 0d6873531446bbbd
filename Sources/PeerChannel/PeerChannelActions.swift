import CryptoVault

/// The actions PeerChannel records: replication, witnessing and sharing with paired devices.
extension AuditAction {
    public static let replicaSend = AuditAction("replica.send")
    public static let replicaReceive = AuditAction("replica.receive")
    public static let replicaReturn = AuditAction("replica.return")

    public static let vaultCopySend = AuditAction("vaultcopy.send")
    public static let vaultCopyReceive = AuditAction("vaultcopy.receive")
    public static let vaultCopyRefuse = AuditAction("vaultcopy.refuse")
    public static let vaultCopyHandover = AuditAction("vaultcopy.handover")
    public static let vaultCopyHandoverFailed = AuditAction("vaultcopy.handover-failed")

    public static let auditCosigned = AuditAction("audit.cosigned")
    public static let auditWitnessFailed = AuditAction("audit.witness-failed")
    public static let witnessCosign = AuditAction("witness.cosign")
    public static let witnessRefuse = AuditAction("witness.refuse")

    public static let compartmentShare = AuditAction("compartment.share")
    public static let compartmentShareFailed = AuditAction("compartment.share-failed")
    public static let shareGrantRefused = AuditAction("share.grant-refused")
}
