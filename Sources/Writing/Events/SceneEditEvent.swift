import CryptoVault

/// A writing session's record (`SceneEditEvent`).
public enum EditEventEntity: WritingEntity { public static let entityName = "edit event" }
public typealias EditEventID = WritingID<EditEventEntity>

/// Who edited what, from which device, when, and by how many words (SECURITY.md §15.5): every
/// content write of a project by one device, merged into one event per writing session. The
/// writer is the device: a vault belongs to one person, and its device id is the one its audit
/// entries carry (§4.7).
public struct SceneEditEvent: Sendable, Equatable {
    public let id: EditEventID
    public let project: ProjectID
    /// The vault's audit device id (`vault_meta.device_id`) of the device that made the edits.
    public let deviceID: AuditDeviceID
    /// The session's first and last edit (Unix seconds).
    public let startedAt: Int64
    public let lastEditAt: Int64
    /// When the session was found over (a later edit came after the gap, or a listing found it
    /// past): the time of its last edit. Nil while another edit could still join it.
    public let endedAt: Int64?
    /// How many content writes it merges.
    public let edits: Int
    /// The documents edited, in the order first edited, each with its net word change.
    public let documents: [DocumentEdit]

    /// The session's net change in words over all its documents.
    public var wordDelta: Int { documents.reduce(0) { $0 + $1.wordDelta } }
}

/// One document's part in a writing session: its id and how many words the session added to it
/// (negative when it removed more than it wrote).
public struct DocumentEdit: Sendable, Equatable {
    public let document: NodeID
    public let wordDelta: Int

    public init(document: NodeID, wordDelta: Int) {
        self.document = document
        self.wordDelta = wordDelta
    }
}
