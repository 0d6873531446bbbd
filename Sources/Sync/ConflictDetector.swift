import Writing

/// Settles what a block holds when devices wrote it concurrently (SECURITY.md §19.3), as a pure
/// function of the values, so every device that holds the same records reaches the same answer.
///
/// Two values written since a common base merge field by field, as git merges lines: a field one
/// side changed takes that side's value. A value has two fields: its place (the order key) and its
/// content (kind, cells and text, the text as a string). So a block's text is never merged
/// character by character: two devices that changed it differently conflict, and the document
/// shows one device's whole text (F17-1, F17-2). Anything else (both changed the place or the
/// content differently; one deleted the block while the other changed it; no common base) is a
/// conflict: the caller keeps the higher-ranked side and puts the other in a syncConflict branch.
public enum ConflictDetector {
    /// The merged value, or nil for a conflict. Values carry their texts (a write's view).
    public static func merge(base: BlockValue?, _ ours: BlockValue, _ theirs: BlockValue) -> BlockValue? {
        if ours == theirs { return theirs }
        guard let base else { return nil }
        if base == ours { return theirs }
        if base == theirs { return ours }
        guard case .present(let baseKey, let baseBlock) = base, case .present(let ourKey, let ourBlock) = ours,
              case .present(let theirKey, let theirBlock) = theirs else { return nil }
        // A block's content is its kind, cells and text: one field (its id is the same on every side).
        guard let key = field(baseKey, ourKey, theirKey), let content = field(baseBlock, ourBlock, theirBlock) else { return nil }
        return .present(orderKey: key, block: content)
    }

    /// One field's three-way merge: the changed side's value, or nil when both changed it differently.
    static func field<Value: Equatable>(_ base: Value, _ ours: Value, _ theirs: Value) -> Value? {
        if ours == theirs || base == theirs { return ours }
        if base == ours { return theirs }
        return nil
    }
}
