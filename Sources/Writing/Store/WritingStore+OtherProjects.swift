import CryptoVault

/// Which ids another project of this vault holds (SECURITY.md §19.5, "Ids another project holds").
/// Node, block and entry ids are one namespace per vault, while a sync record is valid per project:
/// a record of one project may bring an id this vault already holds in another (only a colleague's
/// device makes one, on purpose). Sync leaves such a node, block or entry out of the store, and asks
/// here which ones those are, so that what it writes never fails for what another project holds.
extension WritingStore {
    /// Of `ids`, the nodes a project other than `projectID` holds.
    public func nodes(_ ids: some Sequence<NodeID>, heldOutside projectID: ProjectID) throws -> Set<NodeID> {
        try Set(ids.filter { id in try nodeTable.project(of: id).map { $0 != projectID } ?? false })
    }

    /// Of `ids`, the blocks a document of a project other than `projectID` holds.
    public func blocks(_ ids: some Sequence<BlockID>, heldOutside projectID: ProjectID) throws -> Set<BlockID> {
        try Set(ids.filter { id in
            guard let document = try blockTable.document(of: id) else { return false }
            return try nodeTable.project(of: document) != projectID
        })
    }

    /// Of `ids`, the entries a project other than `projectID` holds.
    public func entries(_ ids: some Sequence<EntryID>, heldOutside projectID: ProjectID) throws -> Set<EntryID> {
        try Set(ids.filter { id in try entryTable.project(of: id).map { $0 != projectID } ?? false })
    }
}
