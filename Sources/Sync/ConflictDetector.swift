import Writing

/// Settles what a block holds when devices wrote it concurrently (SECURITY.md §19.3), as a pure
/// function of the values, so every device that holds the same records reaches the same answer.
///
/// Two values written since a common base merge field by field, as git merges lines: a field one
/// side changed takes that side's value; a text both sides changed merges word by word when their
/// changes do not overlap or touch (`ThreeWayMerge`). Anything else (both changed the
/// same characters, a kind, the cells or the place differently; one deleted the block while the
/// other changed it; no common base) is a conflict: the caller keeps the higher-ranked side and
/// puts the other in a syncConflict branch.
public enum ConflictDetector {
    /// The merged value, or nil for a conflict.
    public static func merge(base: BlockValue?, _ ours: BlockValue, _ theirs: BlockValue) -> BlockValue? {
        if ours == theirs { return ours }
        guard let base else { return nil }
        if base == ours { return theirs }
        if base == theirs { return ours }
        guard case .present(let baseKey, let baseBlock) = base, case .present(let ourKey, let ourBlock) = ours,
              case .present(let theirKey, let theirBlock) = theirs else { return nil }
        guard let key = field(baseKey, ourKey, theirKey), let kind = field(baseBlock.kind, ourBlock.kind, theirBlock.kind),
              let rows = field(baseBlock.rows, ourBlock.rows, theirBlock.rows),
              let text = text(base: baseBlock.text, ourBlock.text, theirBlock.text) else { return nil }
        return .present(orderKey: key, block: Block(id: ourBlock.id, kind: kind, text: text, rows: rows))
    }

    /// One field's three-way merge: the changed side's value, or nil when both changed it differently.
    static func field<Value: Equatable>(_ base: Value, _ ours: Value, _ theirs: Value) -> Value? {
        if ours == theirs || base == theirs { return ours }
        if base == ours { return theirs }
        return nil
    }

    /// A text's three-way merge over words: nil when the changes overlap or touch. Words (runs of
    /// letters and digits) are the unit, not characters, so that two changes of one word are a
    /// conflict rather than a splice of both ("cat" made "cut" and "cot" must not become "cuot");
    /// every other character is a unit of its own. Units are compared as UTF-8 bytes, so a merge
    /// never rebuilds a side with a canonically equivalent spelling it never had.
    static func text(base: String, _ ours: String, _ theirs: String) -> String? {
        if let merged = field(base, ours, theirs) { return merged }
        guard let result = try? ThreeWayMerge.blocks(base: units(base), ours: units(ours), theirs: units(theirs)),
              let merged = result.merged else { return nil }
        return String(decoding: merged.joined(), as: UTF8.self)
    }

    static func units(_ text: String) -> [[UInt8]] {
        var units: [[UInt8]] = [], word: [UInt8] = []
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                word += Array(String(scalar).utf8)
                continue
            }
            if !word.isEmpty { units.append(word); word = [] }
            units.append(Array(String(scalar).utf8))
        }
        if !word.isEmpty { units.append(word) }
        return units
    }
}
