/// A stored proposal to change a document (`Branch`).
public enum BranchEntity: WritingEntity { public static let entityName = "branch" }
public typealias BranchID = WritingID<BranchEntity>

/// Where a branch came from. AI suggestions and research inserts (later issues) reach a document only
/// as branches: the store has no other way for them to touch one.
public enum BranchKind: String, Sendable, Hashable, CaseIterable {
    case aiSuggestion = "ai-suggestion"
    case researchInsert = "research-insert"
    case syncConflict = "sync-conflict"
    case manual
}

/// What became of a branch. Only an open branch can be adopted or discarded, only an adopted one reverted.
public enum BranchState: String, Sendable, Hashable, CaseIterable {
    case open
    case adopted
    case discarded
    case reverted
}

/// A proposed change of one document against a base snapshot, as listed (its content is read with
/// `branchContent`). The provenance and the content are sealed; the kind and state are clear.
public struct Branch: Sendable, Hashable, Identifiable {
    public let id: BranchID
    public let document: NodeID
    /// The snapshot the proposal was made against: adopting merges from it.
    public let base: SnapshotID
    public let kind: BranchKind
    public let state: BranchState
    /// Who or what proposed it (sealed): "assistant: tighten wording", "dr.osei".
    public let provenance: String
    /// Unix seconds.
    public let createdAt: Int64
    /// When it was last adopted, discarded or reverted.
    public let decidedAt: Int64?
    /// After an adoption: the snapshot of the content before it (what a revert restores) and the one it took.
    public let beforeAdoption: SnapshotID?
    public let adoption: SnapshotID?
}
