import CryptoVault

/// Which ids another project of this vault holds (SECURITY.md §19.5, "Ids another project holds").
/// Node, block and entry ids are one namespace per vault, while a sync record is valid per project:
/// a record of one project may bring an id this vault already holds in another (only a colleague's
/// device makes one, on purpose). Sync decides which of the two projects keeps the id here, by what
/// the projects are (never by which came first: review 17 s9, N-s9-1): it asks here who holds an
/// id, leaves the id out of the project that does not keep it, and has the holder give it up when
/// the project it writes keeps it, so that what it writes never fails for what another project holds.
extension WritingStore {
    /// Of `ids`, the nodes a project other than `projectID` holds.
    public func nodes(_ ids: some Sequence<NodeID>, heldOutside projectID: ProjectID) throws -> Set<NodeID> {
        Set(try holders(ofNodes: ids, outside: projectID).keys)
    }

    /// Of `ids`, the blocks a document of a project other than `projectID` holds.
    public func blocks(_ ids: some Sequence<BlockID>, heldOutside projectID: ProjectID) throws -> Set<BlockID> {
        Set(try holders(ofBlocks: ids, outside: projectID).keys)
    }

    /// Of `ids`, the entries a project other than `projectID` holds.
    public func entries(_ ids: some Sequence<EntryID>, heldOutside projectID: ProjectID) throws -> Set<EntryID> {
        Set(try holders(ofEntries: ids, outside: projectID).keys)
    }

    /// Of `ids`, the nodes a project other than `projectID` holds, each with that project.
    public func holders(ofNodes ids: some Sequence<NodeID>, outside projectID: ProjectID) throws -> [NodeID: ProjectID] {
        try held(ids, outside: projectID) { try nodeTable.project(of: $0) }
    }

    /// Of `ids`, the blocks a document of a project other than `projectID` holds, each with that project.
    public func holders(ofBlocks ids: some Sequence<BlockID>, outside projectID: ProjectID) throws -> [BlockID: ProjectID] {
        try held(ids, outside: projectID) { id in try blockTable.document(of: id).flatMap { try nodeTable.project(of: $0) } }
    }

    /// Of `ids`, the entries a project other than `projectID` holds, each with that project.
    public func holders(ofEntries ids: some Sequence<EntryID>, outside projectID: ProjectID) throws -> [EntryID: ProjectID] {
        try held(ids, outside: projectID) { try entryTable.project(of: $0) }
    }

    /// Of `ids`, the blocks a document of `projectID` holds, each with that document.
    public func documents(holdingBlocks ids: some Sequence<BlockID>, in projectID: ProjectID) throws -> [BlockID: NodeID] {
        var held: [BlockID: NodeID] = [:]
        for id in ids {
            if let document = try blockTable.document(of: id), try nodeTable.project(of: document) == projectID { held[id] = document }
        }
        return held
    }

    private func held<ID: Hashable>(_ ids: some Sequence<ID>, outside projectID: ProjectID,
                                    holder: (ID) throws -> ProjectID?) throws -> [ID: ProjectID] {
        var held: [ID: ProjectID] = [:]
        for id in ids { if let project = try holder(id), project != projectID { held[id] = project } }
        return held
    }

    // MARK: Giving an id up (sync's door)

    /// Removes the node `projectID` holds, with everything under it, so that `taker` can hold its id
    /// here (sync: the taker keeps the id, §19.5). Archived or view-only alike: the project's records
    /// keep the node, and sync writes it back once `taker` lets go of the id. Recorded as a removal,
    /// with the taker.
    public func releaseSyncedNode(_ id: NodeID, of projectID: ProjectID, to taker: ProjectID) throws {
        let project = try self.project(projectID)
        let binder = try self.binder(of: project)
        func release(_ row: NodeTable.Row) throws {
            for child in binder.children(of: row.id) { try release(child) }
            try removeRow(row, of: project, details: [.init("kind", row.kind.rawValue), .init("taken-by", taker.hex)])
        }
        guard let row = binder.rows[id] else { return }
        try release(row)
    }

    /// Removes the block from the document of `projectID` that holds it, so that `taker` can hold
    /// its id here (as `releaseSyncedNode`).
    public func releaseSyncedBlock(_ id: BlockID, of projectID: ProjectID, to taker: ProjectID) throws {
        guard let document = try blockTable.document(of: id), try nodeTable.project(of: document) == projectID else { return }
        let project = try self.project(projectID)
        try blockTable.delete(id)
        try remove(try WritingRecord.block(id), of: project)
        try record(.writingContentWrite, project, subject: document, details: [.init("block", id.hex), .init("taken-by", taker.hex)])
    }

    /// Removes the entry `projectID` holds, so that `taker` can hold its id here (as `releaseSyncedNode`).
    public func releaseSyncedEntry(_ id: EntryID, of projectID: ProjectID, to taker: ProjectID) throws {
        guard try entryTable.project(of: id) == projectID else { return }
        let project = try self.project(projectID)
        try entryTable.delete(id)
        try remove(try WritingRecord.entry(id), of: project)
        try record(.writingEntryRemove, project, subject: id, details: [.init("taken-by", taker.hex)])
    }
}
