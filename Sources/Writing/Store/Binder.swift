/// A project's binder as a tree, built from its clear rows: the checks a move or an insert needs
/// (where a node is, how deep, what is under it) and the reading order. Rows that do not make a
/// tree (a parent in another project or missing, a loop, nesting past the limit) are damage.
struct Binder {
    private(set) var rows: [NodeID: NodeTable.Row] = [:]
    private var children: [NodeID?: [NodeTable.Row]] = [:]

    init(_ all: [NodeTable.Row]) throws(WritingError) {
        for row in all { rows[row.id] = row }
        for row in all {
            if let parent = row.parent, rows[parent]?.kind != .chapter {
                throw WritingError(.damagedRecord, "a binder node's parent is not a folder of its project")
            }
            children[row.parent, default: []].append(row)
        }
        for key in children.keys { children[key]?.sort { ($0.orderKey, $0.id.hex) < ($1.orderKey, $1.id.hex) } }
        guard ordered().count == all.count else {
            throw WritingError(.damagedRecord, "the binder's parent links make a loop or nest too deep")
        }
    }

    /// Every node in reading order (depth first, siblings by order key), with its depth (1 at the top).
    func ordered() -> [(row: NodeTable.Row, depth: Int)] {
        var out: [(NodeTable.Row, Int)] = []
        func visit(_ parent: NodeID?, _ depth: Int) {
            guard depth <= WritingLimits.maximumNesting else { return }
            for child in children[parent] ?? [] {
                out.append((child, depth))
                visit(child.id, depth + 1)
            }
        }
        visit(nil, 1)
        return out
    }

    func children(of parent: NodeID?) -> [NodeTable.Row] { children[parent] ?? [] }

    /// 1 for a top-level node, one more per folder it is in.
    func depth(of id: NodeID) -> Int {
        var depth = 1
        var current = rows[id]?.parent
        while let parent = current { depth += 1; current = rows[parent]?.parent }
        return depth
    }

    /// Whether `id` is `ancestor` or somewhere under it.
    func isWithin(_ id: NodeID, _ ancestor: NodeID) -> Bool {
        var current: NodeID? = id
        while let node = current {
            if node == ancestor { return true }
            current = rows[node]?.parent
        }
        return false
    }

    /// The levels below `id`, counting itself: 1 for a document or an empty folder.
    func height(of id: NodeID) -> Int {
        1 + ((children[id] ?? []).map { height(of: $0.id) }.max() ?? 0)
    }

    /// A key for a node placed under `parent` just before `sibling` (at the end when nil), leaving
    /// `moving` (a node that moves within its own folder) out of the count.
    func orderKey(under parent: NodeID?, before sibling: NodeID?, moving: NodeID? = nil) throws(WritingError) -> String {
        let siblings = children(of: parent).filter { $0.id != moving }
        guard let sibling else { return siblings.last.map { OrderKey.between($0.orderKey, nil) } ?? OrderKey.first }
        guard let index = siblings.firstIndex(where: { $0.id == sibling }) else {
            throw WritingError(.nodeNotFound, "the item to place it before is not in that folder")
        }
        let key = OrderKey.between(index > 0 ? siblings[index - 1].orderKey : nil, siblings[index].orderKey)
        // Past the bound no record could carry it (review 17 s10, N-s10-2): refused, never stored.
        guard OrderKey.fits(key) else {
            throw WritingError(.invalidIdentifier, "no room for another item just there (its order key would pass \(OrderKey.maximumLength) bytes): place it after the item before, or move that item first")
        }
        return key
    }
}
