import CryptoVault
import Writing

/// Ids another project of this vault holds (SECURITY.md §19.5, review s8 F1). Whether a record is
/// taken is decided per project, by the records alone; but the store's node, block and entry ids
/// are one namespace per vault. A record may bring an id this vault holds in another project (only
/// a colleague's device makes one, on purpose: an editor of one project who shares another with
/// just one of the owner's devices). Refusing the write would refuse the whole batch on that
/// device alone, and every later record of the project after it, splitting the owner's devices.
/// So the node, block or entry is left out of this project's store here, as a version the store
/// cannot hold is: the records keep it (and send it on), the rest of the project is written, what
/// was left out is remembered (`LeftOutIDs`) and written once the other project lets go of the id,
/// and a commit never takes it for the owner's removal.
extension VaultSync {
    func leftOut(_ project: ProjectID) -> LeftOutIDs { LeftOutIDs(database: database, project: project) }

    /// The nodes the records show present that are absent from the project here and either held by
    /// another project now (`remembering`: the list becomes these) or, for a commit, listed as left out.
    func nodesLeftOut(of binder: [NodeID: NodeValue], absentFrom present: Set<NodeID>, in project: ProjectID,
                      remembering: Bool = false) throws -> Set<NodeID> {
        let candidates = binder.compactMap { id, value -> NodeID? in
            guard case .present = value, !present.contains(id) else { return nil }
            return id
        }
        let outside = candidates.isEmpty ? [] : try store.nodes(candidates, heldOutside: project)
        if remembering {
            try leftOut(project).set(.node, to: Set(outside.map(\.bytes)))
            return outside
        }
        let listed = try leftOut(project).all(.node)
        return outside.union(candidates.filter { listed.contains($0.bytes) })
    }

    /// `content`, to be written to a document that holds `stored`, without the blocks another
    /// project holds here (remembered as left out); the blocks written are no longer left out.
    /// Only blocks `stored` lacks are looked up (the stored ones are this document's).
    func showable(_ content: DocumentContent, stored: DocumentContent, in project: ProjectID) throws -> DocumentContent {
        let here = Set(stored.blocks.map(\.id))
        let fresh = content.blocks.map(\.id).filter { !here.contains($0) }
        let outside = fresh.isEmpty ? [] : try store.blocks(fresh, heldOutside: project)
        let listed = try leftOut(project).all(.block)
        try leftOut(project).forget(.block, listed.intersection(content.blocks.map(\.id.bytes)).subtracting(outside.map(\.bytes)))
        guard !outside.isEmpty else { return content }
        try leftOut(project).remember(.block, outside.map(\.bytes))
        return DocumentContent(blocks: content.blocks.filter { !outside.contains($0.id) })
    }

    /// `content` without the blocks another project holds here (a conflict's proposal, §19.3).
    func withoutBlocksHeldOutside(_ content: DocumentContent, in project: ProjectID) throws -> DocumentContent {
        let outside = try store.blocks(content.blocks.map(\.id), heldOutside: project)
        return outside.isEmpty ? content : DocumentContent(blocks: content.blocks.filter { !outside.contains($0.id) })
    }

    /// The document as stored here with the blocks left out of it put back where the records show
    /// them, after the block before them: a commit then sends nothing for them. Blocks as the store
    /// keeps them (`SyncReplica.content`): a continuation of a block in pieces (`BlockOverflow`)
    /// left out here is put back too, or the commit, joining the pieces it finds, would take the
    /// missing piece's words for the writer's deletion (review 17 s9, N-s9-11).
    func keepingLeftOut(_ stored: DocumentContent, of document: NodeID, replica: inout SyncReplica, in project: ProjectID) throws -> DocumentContent {
        let here = Set(stored.blocks.map(\.id))
        let shown = replica.content(of: document).blocks
        let absent = shown.map(\.id).filter { !here.contains($0) }
        guard !absent.isEmpty else { return stored }
        let listed = try leftOut(project).all(.block)
        let outside = try store.blocks(absent, heldOutside: project).union(absent.filter { listed.contains($0.bytes) })
        guard !outside.isEmpty else { return stored }
        var blocks = stored.blocks
        for (index, block) in shown.enumerated() where outside.contains(block.id) {
            let placed = Set(blocks.map(\.id))
            let before = shown[..<index].last { placed.contains($0.id) }?.id
            let at = before.flatMap { id in blocks.firstIndex { $0.id == id }.map { $0 + 1 } } ?? 0
            blocks.insert(block, at: at)
        }
        return DocumentContent(blocks: blocks)
    }

    /// The entries the records show present that are absent from the project here and either held
    /// by another project now (`remembering`: the list becomes these) or, for a commit, listed.
    func entriesLeftOut(of held: [EntryID: EntryValue], absentFrom here: Set<EntryID>, in project: ProjectID,
                        remembering: Bool = false) throws -> Set<EntryID> {
        let candidates = held.compactMap { id, value -> EntryID? in
            guard case .present = value, !here.contains(id) else { return nil }
            return id
        }
        let outside = candidates.isEmpty ? [] : try store.entries(candidates, heldOutside: project)
        if remembering {
            try leftOut(project).set(.entry, to: Set(outside.map(\.bytes)))
            return outside
        }
        let listed = try leftOut(project).all(.entry)
        return outside.union(candidates.filter { listed.contains($0.bytes) })
    }
}
