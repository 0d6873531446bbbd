import CryptoVault

/// A stored version of a whole project (`ProjectSnapshot`).
public enum ProjectSnapshotEntity: WritingEntity { public static let entityName = "project snapshot" }
public typealias ProjectSnapshotID = WritingID<ProjectSnapshotEntity>

/// How a project snapshot came to be: taken without a title, taken with one, or written by a
/// restore (the project as the restore left it).
public enum ProjectSnapshotOrigin: String, Sendable, Hashable, CaseIterable {
    case automatic
    case titled
    case restore
}

/// One version of a whole project, as listed (SECURITY.md §15.2): its binder (every folder and
/// document with its place and title) and, for each document, the document snapshot that holds its
/// content then. Read back with `projectSnapshotContents`.
public struct ProjectSnapshot: Sendable, Hashable, Identifiable {
    public let id: ProjectSnapshotID
    /// 1 for the project's first snapshot, then one more each time.
    public let sequence: Int
    public let origin: ProjectSnapshotOrigin
    /// A titled snapshot's title (sealed; nil for the others).
    public let title: String?
    /// The vault's audit device id (`vault_meta.device_id`) of the device that took it.
    public let deviceID: AuditDeviceID
    /// Unix seconds.
    public let createdAt: Int64
}

/// What a project snapshot holds for one node: its place and title, and a document's version.
public struct ProjectSnapshotNode: Sendable, Hashable {
    public let id: NodeID
    public let kind: NodeKind
    public let parent: NodeID?
    public let orderKey: String
    public let title: String
    /// The document snapshot of a document's content; nil for a folder.
    public let snapshot: SnapshotID?
}

/// The result of restoring a project: the snapshot taken first of the project as it was (so the
/// restore can be undone), the version the restore wrote, and the documents whose content changed.
public struct ProjectRestore: Sendable, Hashable {
    public let before: ProjectSnapshot
    public let version: ProjectSnapshot
    public let documentsRestored: Int
}
