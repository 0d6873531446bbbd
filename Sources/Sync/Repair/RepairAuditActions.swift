import CryptoVault

/// The actions of `vaultctl repair --from DEVICE` (SECURITY.md §19.10), beside those of the records
/// it stores (`sync.record-receive`) and the projects it makes again (`writing.project-create`).
extension AuditAction {
    /// The damaged store kept aside (details: peer, kept (the folder's name under `damaged/`), bytes).
    public static let syncRepairKept = AuditAction("sync.repair-kept")
    /// The writing store emptied and made again (details: peer, tables, sealed (records removed)).
    public static let syncRepairReset = AuditAction("sync.repair-reset")
    /// The rebuild done (details: peer, projects, records, checked (against the audit log),
    /// missing (recorded here, not held by the device), kept).
    public static let syncRepair = AuditAction("sync.repair")
    /// The repair refused or stopped before changing anything (details: peer, reason (a code)).
    public static let syncRepairRefused = AuditAction("sync.repair-refused")
    /// The kept copies removed, as `compartment destroy` or `passwd --remove-kept-copies` asked
    /// (details: kept (their names under `damaged/`, comma-separated), because (the command)).
    public static let syncRepairKeptRemove = AuditAction("sync.repair-kept-remove")
    /// A command read a kept copy (`doc show|list --read-only --vault VAULT/damaged/NAME`), recorded
    /// in the live vault's log (details: kept (NAME), command, project, document (`doc show`)): ids
    /// only, never a title or a word (closing note s10: the read left no entry where the owner looks).
    public static let syncRepairKeptRead = AuditAction("sync.repair-kept-read")
    /// `vaultctl repair` (without --from) mended damaged rows of `sync_records` (`VaultSync.DamagedRecords`;
    /// details: mended, dropped, projects).
    public static let syncRecordsMended = AuditAction("sync.records-mended")
    /// `vaultctl repair` (without --from) mended damaged rows of the sync module's other tables
    /// (`VaultSync.DamagedRows`; details: mended, dropped (table=count, comma-separated), waiting).
    public static let syncRowsMended = AuditAction("sync.rows-mended")
}
