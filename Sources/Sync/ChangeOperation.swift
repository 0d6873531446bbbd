import CryptoVault
import Writing

/// What a block holds at one point of its history: its place among the document's blocks (an
/// order key), its kind, text and cells, or nothing (deleted). A block op writes the whole value,
/// and `ConflictDetector` merges concurrent values field by field (SECURITY.md §19.3).
public enum BlockValue: Sendable, Hashable {
    case deleted
    case present(orderKey: String, block: Block)

    public var block: Block? {
        if case .present(_, let block) = self { return block }
        return nil
    }

    public var orderKey: String? {
        if case .present(let key, _) = self { return key }
        return nil
    }
}

/// What a binder node holds: a document (Scene) or folder (Chapter) with its parent, order and
/// title, or nothing (removed). Nodes are last-writer-wins registers: a title has no words to lose.
public enum NodeValue: Sendable, Hashable {
    case removed
    case present(kind: NodeKind, parent: NodeID?, orderKey: String, title: String)
}

/// A sync conflict kept as a branch (SECURITY.md §19.3): the block's value each side wrote, the
/// losing one proposed, so neither side's words are lost. Its id is derived from the block and the
/// losing side's records, so every device that meets the conflict names the same branch.
public struct SyncConflict: Sendable, Hashable {
    public let branch: BranchID
    public let document: NodeID
    public let block: BlockID
    /// The value left out of the document (proposed by the branch).
    public let losing: BlockValue
    /// The value the document kept.
    public let winning: BlockValue

    public init(branch: BranchID, document: NodeID, block: BlockID, losing: BlockValue, winning: BlockValue) {
        self.branch = branch
        self.document = document
        self.block = block
        self.losing = losing
        self.winning = winning
    }

    /// The branch id of the conflict `label` (its kind and version) and `parts` (its block and the
    /// records it comes from) name (SECURITY.md §19.3): the first 16 bytes of
    /// SHA-256(label ‖ 0x00 ‖ parts), so every device that meets the conflict names the same branch.
    static func branchID(_ label: String, _ parts: [UInt8]) -> BranchID {
        // Sixteen bytes always make a BranchID: the try cannot fail.
        try! BranchID(bytes: Array(SHA256.hash(Array(label.utf8) + [0] + parts).prefix(16)))
    }
}

/// One change of the writing model inside a change record.
public enum ChangeOperation: Sendable, Hashable {
    /// A binder node made, renamed, moved or removed.
    case node(NodeID, NodeValue)
    /// A block of `document` written, moved or deleted.
    case block(document: NodeID, BlockID, BlockValue)
    /// A conflict made durable: once written, its branch survives whatever later edits resolve it.
    case conflict(SyncConflict)
    /// Characters of a block's text inserted and deleted (SECURITY.md §19.3): the block's text is
    /// a sequence of characters each named by the record that typed it, so two devices' edits of
    /// one block merge character by character. A record carrying these for a block also writes
    /// the block (`.block`) with the text they make.
    case text(document: NodeID, BlockID, [TextEdit])
    /// A snapshot, a branch made or decided, or an edit event (operations 0x06 to 0x08,
    /// `VersionOperation`): the project's history, so every device shows the same.
    case version(VersionOperation)
    /// An entry written or removed, or the project renamed, archived or brought back (operations
    /// 0x09 and 0x0A, `ProjectOperation`).
    case project(ProjectOperation)
}
