import CryptoVault

/// The actions sync records (SECURITY.md §19.6). Each names the project's compartment and, as its
/// subject, the project; details are hashes, counters, device ids and reasons, never text.
extension AuditAction {
    /// This device's own edits written as a change record (details: hash, counter, operations).
    public static let syncRecordCommit = AuditAction("sync.record-commit")
    /// A paired device's record verified and stored (details: hash, device, counter).
    public static let syncRecordReceive = AuditAction("sync.record-receive")
    /// A paired device's record refused (details: the reason's code, the hash when it had one).
    public static let syncRecordRefused = AuditAction("sync.record-refused")
    /// A sync conflict kept as a branch of kind sync-conflict (details: conflict, branch, block).
    public static let syncConflictBranch = AuditAction("sync.conflict-branch")
    /// A write of someone else's device to the owner's project not applied here (`OwnersProject`;
    /// details: change — document-removal, entry-removal, archive or rename —, device, hash, and
    /// the document or entry).
    public static let syncChangeRefused = AuditAction("sync.change-refused")
    /// A stored record the fork rule took out of the replica (SECURITY.md §19.4; details: hash, device, counter).
    public static let syncRecordDropped = AuditAction("sync.record-dropped")
    /// The words records the fork rule took out showed, kept as a branch of kind sync-conflict
    /// (details: branch, document).
    public static let syncForkBranch = AuditAction("sync.fork-branch")
}
