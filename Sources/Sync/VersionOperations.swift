import CryptoVault
import Writing

/// A change of a project's versions (SECURITY.md §15) carried by a change record (§19.2, operations
/// 0x06 to 0x08), so another of the owner's devices shows the same history: the snapshots taken,
/// the branches made and what was decided about them, and who edited what when.
///
/// Each names what it changes by the id it was made with (random on the device that made it, and
/// then the same on every device: a received version is stored under it), and carries what a
/// receiving device needs to store it exactly: a snapshot's content (whole, or a delta from an
/// earlier snapshot of the same document that the record's past holds), a branch's proposal (a
/// delta from its base), a decision's snapshots, an event's documents and word changes. A
/// decision changes no content itself: the words an adoption or a revert wrote travel as the
/// document's own block and text operations, in the same record.
public enum VersionOperation: Sendable, Hashable {
    /// 0x06: a snapshot of a document.
    case snapshot(SyncedSnapshot)
    /// 0x07 0x01: a branch made.
    case branch(SyncedBranch)
    /// 0x07 0x02: a branch adopted, discarded or reverted.
    case decision(SyncedDecision)
    /// 0x08: a writing session's edit event, as its device last committed it.
    case editEvent(SyncedEditEvent)
    /// 0x0C: one part of a snapshot's content (or delta) too large for one record, named by its
    /// SHA-256: a snapshot whose payload is `.parts` names it (SECURITY.md §19.2).
    case snapshotPart(SnapshotPart)
}

/// A piece of a snapshot's payload, carried in a record of its own so that a snapshot over what
/// one record holds still travels: the snapshot's 0x06 names each part by its SHA-256, in order.
public struct SnapshotPart: Sendable, Hashable {
    public let snapshot: SnapshotID
    public let bytes: [UInt8]
    /// SHA-256 of `bytes`: what the snapshot names it by.
    public let digest: [UInt8]

    public init(snapshot: SnapshotID, bytes: [UInt8]) {
        self.snapshot = snapshot
        self.bytes = bytes
        self.digest = SHA256.hash(bytes)
    }
}

/// A snapshot's content as a record carries it.
public enum SnapshotPayload: Sendable, Hashable {
    /// The content (§15.2 bytes).
    case whole([UInt8])
    /// A snapshot delta (§15.1) from the content of `base`, an earlier snapshot of the same document.
    case delta(base: SnapshotID, [UInt8])
    /// The content (`base` nil) or a delta from `base`'s content, `length` bytes in all, carried
    /// by 0x0C parts in the record's past or earlier in the record, named here by their SHA-256 in
    /// order. A replica keeps the snapshot as `.whole` or `.delta` once it has joined the parts.
    case parts(base: SnapshotID?, length: Int, digests: [[UInt8]])

    /// The snapshot whose content a delta (in parts or not) is from; nil for a whole content.
    public var base: SnapshotID? {
        switch self {
        case .whole: nil
        case .delta(let base, _): base
        case .parts(let base, _, _): base
        }
    }
}

public struct SyncedSnapshot: Sendable, Hashable {
    public let id: SnapshotID
    public let document: NodeID
    public let origin: SnapshotOrigin
    /// A titled snapshot's title; nil for every other origin.
    public let title: String?
    /// The audit device id (§4.7) of the device that took it, as its row there says.
    public let deviceID: AuditDeviceID
    /// Unix seconds.
    public let createdAt: Int64
    /// SHA-256 of the content: the receiver checks the content it rebuilt against it.
    public let digest: [UInt8]
    public let payload: SnapshotPayload

    public init(id: SnapshotID, document: NodeID, origin: SnapshotOrigin, title: String?, deviceID: AuditDeviceID, createdAt: Int64,
                digest: [UInt8], payload: SnapshotPayload) {
        self.id = id
        self.document = document
        self.origin = origin
        self.title = title
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.digest = digest
        self.payload = payload
    }
}

public struct SyncedBranch: Sendable, Hashable {
    public let id: BranchID
    public let document: NodeID
    public let kind: BranchKind
    public let base: SnapshotID
    public let provenance: String
    public let createdAt: Int64
    /// A snapshot delta (§15.1) from the base's content to the proposed content.
    public let delta: [UInt8]

    public init(id: BranchID, document: NodeID, kind: BranchKind, base: SnapshotID, provenance: String, createdAt: Int64, delta: [UInt8]) {
        self.id = id
        self.document = document
        self.kind = kind
        self.base = base
        self.provenance = provenance
        self.createdAt = createdAt
        self.delta = delta
    }
}

/// What was decided about a branch.
public enum BranchDecision: UInt8, Sendable, Hashable, CaseIterable {
    case adopt = 1
    case discard = 2
    case revert = 3
}

public struct SyncedDecision: Sendable, Hashable {
    /// The branch, or for a sync conflict's branch the conflict's id (§19.2), which every device
    /// that meets the conflict names its branch by.
    public let branch: BranchID
    public let document: NodeID
    public let decision: BranchDecision
    public let decidedAt: Int64
    /// An adoption's snapshot of the content before it (nil for a discard or revert).
    public let before: SnapshotID?
    /// The snapshot the adoption wrote (nil for a discard or revert: a revert's snapshot travels
    /// as a snapshot of origin revert, and the branch row keeps the adoption's two).
    public let version: SnapshotID?

    public init(branch: BranchID, document: NodeID, decision: BranchDecision, decidedAt: Int64, before: SnapshotID?, version: SnapshotID?) {
        self.branch = branch
        self.document = document
        self.decision = decision
        self.decidedAt = decidedAt
        self.before = before
        self.version = version
    }
}

/// One document's part of an edit event: its id and its net word change over the session.
public struct EditedDocument: Sendable, Hashable {
    public let document: NodeID
    public let words: Int32

    public init(document: NodeID, words: Int32) {
        self.document = document
        self.words = words
    }
}

public struct SyncedEditEvent: Sendable, Hashable {
    public let id: EditEventID
    /// The audit device id of the device whose writing session it is.
    public let deviceID: AuditDeviceID
    public let startedAt: Int64
    public let lastEditAt: Int64
    /// Nil while the session may go on; once over, its last edit's time.
    public let endedAt: Int64?
    public let edits: Int
    public let documents: [EditedDocument]

    public init(id: EditEventID, deviceID: AuditDeviceID, startedAt: Int64, lastEditAt: Int64, endedAt: Int64?, edits: Int,
                documents: [EditedDocument]) {
        self.id = id
        self.deviceID = deviceID
        self.startedAt = startedAt
        self.lastEditAt = lastEditAt
        self.endedAt = endedAt
        self.edits = edits
        self.documents = documents
    }
}
