import Writing

/// Settles what a block holds when devices wrote it concurrently (SECURITY.md §19.3), as a pure
/// function of the values, so every device that holds the same records reaches the same answer.
///
/// Two values written since a common base merge field by field, as git merges lines: a field one
/// side changed takes that side's value. The text is not a field here: it is a sequence of named
/// characters (`TextSequence`) that merges character by character, and the caller puts the merged
/// text in. Anything else (both changed a kind, the cells or the place differently; one deleted the
/// block while the other changed it; no common base) is a conflict: the caller keeps the
/// higher-ranked side and puts the other in a syncConflict branch.
public enum ConflictDetector {
    /// The merged value (its text to be replaced by the merged text), or nil for a conflict.
    public static func merge(base: BlockValue?, _ ours: BlockValue, _ theirs: BlockValue) -> BlockValue? {
        if ours == theirs { return ours }
        guard let base else { return nil }
        if base == ours { return theirs }
        if base == theirs { return ours }
        guard case .present(let baseKey, let baseBlock) = base, case .present(let ourKey, let ourBlock) = ours,
              case .present(let theirKey, let theirBlock) = theirs else { return nil }
        guard let key = field(baseKey, ourKey, theirKey), let kind = field(baseBlock.kind, ourBlock.kind, theirBlock.kind),
              let rows = field(baseBlock.rows, ourBlock.rows, theirBlock.rows) else { return nil }
        return .present(orderKey: key, block: Block(id: ourBlock.id, kind: kind, text: theirBlock.text, rows: rows))
    }

    /// One field's three-way merge: the changed side's value, or nil when both changed it differently.
    static func field<Value: Equatable>(_ base: Value, _ ours: Value, _ theirs: Value) -> Value? {
        if ours == theirs || base == theirs { return ours }
        if base == ours { return theirs }
        return nil
    }
}
