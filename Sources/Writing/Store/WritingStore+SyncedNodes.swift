import CryptoVault

/// The one door sync needs into the binder (SECURITY.md §19.5): a document or folder made on
/// another of the owner's devices keeps the id and order key it was made with there, so that both
/// devices' change records name the same node. Everything else about it is `addNode`'s: checked,
/// sealed, and recorded in the transaction as `writing.node-add`.
extension WritingStore {
    @discardableResult
    public func addSyncedNode(_ id: NodeID, _ kind: NodeKind, titled title: String, in projectID: ProjectID,
                              under parent: NodeID?, orderKey: String) throws -> BinderNode {
        let title = try Self.checkedName(title, "a title")
        let project = try writable(projectID, receiving: true)
        guard OrderKey.isValid(orderKey) else { throw WritingError(.invalidIdentifier, "an order key outside its grammar") }
        guard try nodeTable.row(id) == nil else { throw WritingError(.invalidIdentifier, "a node \(id) exists already") }
        let binder = try self.binder(of: project)
        if let parent {
            try checkFolder(parent, in: binder, project: project)
            guard binder.depth(of: parent) + 1 <= WritingLimits.maximumNesting else {
                throw WritingError(.nestingTooDeep, "folders nest at most \(WritingLimits.maximumNesting) deep")
            }
        }
        let row = NodeTable.Row(id: id, kind: kind, parent: parent, orderKey: orderKey, createdAt: now)
        try nodeTable.insert(row, in: projectID)
        try seal(Array(title.utf8), at: try WritingRecord.nodeTitle(row.id), of: project)
        try record(.writingNodeAdd, project, subject: row.id, details: [.init("kind", kind.rawValue), .init("origin", "sync")])
        return BinderNode(row, title: title)
    }
}

extension WritingStore {
    /// Puts a node where another of the owner's devices moved it: under `parent` (the top level
    /// when nil) with that device's order key, so both binders order it alike. Checked as
    /// `moveNode` is (a folder never moves under itself, nesting stays bounded) and recorded as
    /// `writing.node-move`.
    public func moveSyncedNode(_ id: NodeID, in projectID: ProjectID, under parent: NodeID?, orderKey: String) throws {
        let project = try writable(projectID, receiving: true)
        guard OrderKey.isValid(orderKey) else { throw WritingError(.invalidIdentifier, "an order key outside its grammar") }
        let binder = try self.binder(of: project)
        try checkMove(id, under: parent, in: binder, project: project)
        try nodeTable.move(id, under: parent, orderKey: orderKey)
        try record(.writingNodeMove, project, subject: id, details: [.init("origin", "sync")])
    }
}
