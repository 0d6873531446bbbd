import CryptoVault

/// How a snapshot came to be.
public enum SnapshotOrigin: String, Sendable, Hashable, CaseIterable {
    /// Taken by `AutoSnapshotService` (or a caller asking for one without a title).
    case automatic
    /// Taken on purpose, with a title.
    case titled
    /// Made by restoring an earlier snapshot: the version the restore wrote.
    case restore
    /// Made by adopting a branch: the version the adoption wrote.
    case adopt
    /// Made by reverting an adoption: the content from before it, again.
    case revert
    /// Made by discarding a branch: the document as it was when the proposal was turned down (a
    /// version of its own even when the content is unchanged, as every branch decision is).
    case discard
}

/// One stored version of a document, as listed (its content is read with `snapshotContent`).
public struct Snapshot: Sendable, Hashable, Identifiable {
    public let id: SnapshotID
    public let document: NodeID
    /// 1 for the document's first snapshot, then one more each time.
    public let sequence: Int
    public let origin: SnapshotOrigin
    /// A titled snapshot's title (sealed; nil for the others).
    public let title: String?
    /// Whether the whole content is stored (else the delta from the previous snapshot).
    public let isKeyframe: Bool
    /// The vault's audit device id (`vault_meta.device_id`) of the device that took it.
    public let deviceID: AuditDeviceID
    /// Unix seconds.
    public let createdAt: Int64
}
