import CryptoVault

/// The actions the writing model records (SECURITY.md §14.6). Each entry names the project's
/// compartment and, as its subject, the id of the project, node or entry; no title or text is ever a
/// detail. Every sealed record written or removed also leaves the library's own `record.seal` or
/// `record.rm` entry, and every read a `record.open`.
extension AuditAction {
    public static let writingProjectCreate = AuditAction("writing.project-create")
    public static let writingProjectRename = AuditAction("writing.project-rename")
    public static let writingProjectArchive = AuditAction("writing.project-archive")
    /// A change refused before anything changed (details: reason `view-only`: the project is shared
    /// with this device to view only, SECURITY.md §19.9); recorded though the change rolled back.
    public static let writingChangeRefused = RefusalAction.writingChange.action
    /// The project became view-only here, or stopped being (details: view-only yes/no, from: the
    /// device that shared it; SECURITY.md §19.9).
    public static let writingProjectViewOnly = AuditAction("writing.project-view-only")
    /// The project's register changed (labels and visibility only; no record moves).
    public static let writingProjectRegister = AuditAction("writing.project-register")
    /// `vaultctl repair` wrote a damaged row of `writing_projects` again (`ProjectRowMend`; details:
    /// columns (comma-separated), from (`audit-log`, and `compartment` when the register came from it)).
    public static let writingProjectRowMended = AuditAction("writing.project-row-mended")
    /// `vaultctl repair` mended a damaged row of another writing table (`WritingRowMend`; details:
    /// table, columns (comma-separated), done (`rewritten` or `dropped`), from (`audit-log`,
    /// `document`, or `derived` for a dropped row that held no words)). The subject is the project.
    public static let writingRowMended = AuditAction("writing.row-mended")
    /// `vaultctl repair` put back a row that linked elsewhere (`LinkMend`; details: table, row (its
    /// id), column, from (`sealed-record`, and for a block `positions`, `version`, `node-id-bits`)).
    public static let writingLinkMended = AuditAction("writing.link-mended")
    public static let writingNodeAdd = AuditAction("writing.node-add")
    public static let writingNodeRename = AuditAction("writing.node-rename")
    public static let writingNodeMove = AuditAction("writing.node-move")
    public static let writingNodeRemove = AuditAction("writing.node-rm")
    /// A document's content replaced; details give how many blocks were sealed, kept and removed.
    public static let writingContentWrite = AuditAction("writing.content-write")
    public static let writingEntryAdd = AuditAction("writing.entry-add")
    public static let writingEntryUpdate = AuditAction("writing.entry-update")
    public static let writingEntryRemove = AuditAction("writing.entry-rm")
    /// A snapshot of a document taken (details: the snapshot's id, its origin and form; SECURITY.md §15.2).
    public static let writingSnapshotCreate = AuditAction("writing.snapshot-create")
    /// A document restored to a snapshot (details: the snapshot restored and the new version's id).
    public static let writingSnapshotRestore = AuditAction("writing.snapshot-restore")
    /// A branch proposed (details: its id, kind and base snapshot; SECURITY.md §15.3).
    public static let writingBranchCreate = AuditAction("writing.branch-create")
    /// A branch adopted (details: the branch, whether it was merged, the snapshots before and after).
    public static let writingBranchAdopt = AuditAction("writing.branch-adopt")
    /// A branch discarded: kept, marked, and the document untouched.
    public static let writingBranchDiscard = AuditAction("writing.branch-discard")
    /// An adoption undone (details: the branch and the new version's id).
    public static let writingBranchRevert = AuditAction("writing.branch-revert")
}

extension AuditAction {
    /// A project searched (details: only how many documents matched; never the query, SECURITY.md §15.4).
    public static let writingSearch = AuditAction("writing.search")
}

extension AuditAction {
    /// A privileged project's writing session began (SECURITY.md §15.5; subject the project, details
    /// the event's id, the first document's id and the time): ids and times only, never text.
    public static let writingEditSessionStart = AuditAction("writing.edit-session-start")
    /// A privileged project's writing session was found over (details: the event, its documents' ids,
    /// the net word change, the number of edits, its first and last edit's times).
    public static let writingEditSessionEnd = AuditAction("writing.edit-session-end")
}

extension AuditAction {
    /// A snapshot of a whole project taken (SECURITY.md §15.2; details: its id, origin and how many documents it holds).
    public static let writingProjectSnapshotCreate = AuditAction("writing.project-snapshot-create")
    /// A project restored to a project snapshot (details: the snapshot, the one taken before, the
    /// new version, and how many documents' content changed).
    public static let writingProjectSnapshotRestore = AuditAction("writing.project-snapshot-restore")
}
