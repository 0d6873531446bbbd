/// How many characters an edit inserted and deleted, as `AutoSnapshotPolicy` counts them (Swift
/// `Character`s, as the writer sees them). Blocks are matched by id: a new block's characters are
/// inserted, a removed block's deleted, and in a block whose text changed, what lies between the
/// common beginning and the common end of the old and the new text is deleted and inserted (a
/// block's text and its table cells, one after the other). One typed run or one paste is counted
/// exactly; two separate changes in one block between saves count as the span that holds both.
enum CharacterChange {
    static func between(_ old: DocumentContent, _ new: DocumentContent) -> (inserted: Int, deleted: Int) {
        let oldByID = Dictionary(uniqueKeysWithValues: old.blocks.map { ($0.id, $0) })
        let newIDs = Set(new.blocks.map(\.id))
        var inserted = 0, deleted = 0
        for block in new.blocks {
            guard let before = oldByID[block.id] else { inserted += characters(of: block).count; continue }
            guard before != block else { continue }
            let change = span(characters(of: before), characters(of: block))
            inserted += change.inserted
            deleted += change.deleted
        }
        for block in old.blocks where !newIDs.contains(block.id) { deleted += characters(of: block).count }
        return (inserted, deleted)
    }

    /// The block's text, then each cell of its rows (a line feed between them, which counts too).
    static func characters(of block: Block) -> [Character] {
        Array(([block.text] + block.rows.joined()).joined(separator: "\n"))
    }

    /// The differing middle of `old` and `new` once their common beginning and end are set aside.
    static func span(_ old: [Character], _ new: [Character]) -> (inserted: Int, deleted: Int) {
        var start = 0
        while start < old.count, start < new.count, old[start] == new[start] { start += 1 }
        var end = 0
        while end < old.count - start, end < new.count - start, old[old.count - 1 - end] == new[new.count - 1 - end] { end += 1 }
        return (new.count - start - end, old.count - start - end)
    }
}
