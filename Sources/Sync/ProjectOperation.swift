import CryptoVault
import Writing

/// A change of what a project holds beside its binder and versions (SECURITY.md §19.2, operations
/// 0x09 and 0x0A): its entries (characters, places, plot beats, snippets: §14.5) and its own name
/// and archived flag. Each is a last-writer-wins register (§19.3), as a binder node is: an entry or
/// a name is written whole, and has no words to merge.
public enum ProjectOperation: Sendable, Hashable {
    /// 0x09: an entry written (whole) or removed.
    case entry(EntryID, EntryValue)
    /// 0x0A 0x01: the project renamed.
    case name(String)
    /// 0x0A 0x02: the project archived at a time (Unix seconds), or brought back (nil).
    case archived(Int64?)
    /// 0x0B: a snapshot of the whole project (§15.2), its documents' versions named by the document
    /// snapshots that travel as 0x06.
    case projectSnapshot(SyncedProjectSnapshot)
}

/// A project snapshot as a record carries it: what §15.2 keeps of it, by reference to document snapshots.
public struct SyncedProjectSnapshot: Sendable, Hashable {
    public let id: ProjectSnapshotID
    public let origin: ProjectSnapshotOrigin
    /// A titled one's title; nil for every other origin.
    public let title: String?
    /// The audit device id (§4.7) of the device that took it.
    public let deviceID: AuditDeviceID
    /// Unix seconds.
    public let createdAt: Int64
    /// The binder in reading order (a folder before what it holds), each document with its version.
    public let nodes: [ProjectSnapshotNode]

    public init(id: ProjectSnapshotID, origin: ProjectSnapshotOrigin, title: String?, deviceID: AuditDeviceID, createdAt: Int64,
                nodes: [ProjectSnapshotNode]) {
        self.id = id
        self.origin = origin
        self.title = title
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.nodes = nodes
    }
}

/// What an entry holds at one point of its history.
public enum EntryValue: Sendable, Hashable {
    case removed
    case present(ProjectEntry)
}
