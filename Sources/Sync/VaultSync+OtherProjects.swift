import CryptoVault
import Writing

/// Ids two projects of this vault hold (SECURITY.md §19.5, review s8 F1, review 17 s9 N-s9-1).
/// Whether a record is taken is decided per project, by the records alone; but the store's node,
/// block and entry ids are one namespace per vault. A record may bring an id this vault holds in
/// another project (only a colleague's device makes one, on purpose: an editor of one project who
/// copies its ids into another it shares with just one of the owner's devices). Refusing the write
/// would refuse the whole batch on that device alone, and every later record of the project after
/// it, splitting the owner's devices. So one of the two projects keeps the id here, by what the
/// projects are, never by which came first (`keeps`): the owner's own project over one someone
/// else's device shared. The other leaves it out, as a version the store cannot hold is left out:
/// its records keep it (and send it on), the rest of it is written, what was left out is
/// remembered (`LeftOutIDs`, shown by `vaultctl sync status`) and written once the keeper lets go
/// of the id, and a commit never takes it for the owner's removal. A receive of the project that
/// keeps an id another project came first with takes it from that one, in its own transaction.
extension VaultSync {
    func leftOut(_ project: ProjectID) -> LeftOutIDs { LeftOutIDs(database: database, project: project) }

    /// Whether `project` keeps an id it and `other` (which holds it here) both hold: the owner's own
    /// project over one someone else's device shared with this vault (`SharedProjectOrigin`). So a
    /// colleague who copies an id of the owner's into a project of its own hides nothing of the
    /// owner's on any device, whichever of the two came first there. Of two projects of the same
    /// kind the one holding it keeps it: a rule by project id would let a colleague who edits two of
    /// the owner's projects take an item out of the one with the higher id on every own device
    /// (reviewer, session 10), where first-come hides it at most where the copy came first.
    func keeps(_ project: ProjectID, over other: ProjectID) throws -> Bool {
        let own = try !SharedProjectOrigin.isSomeoneElses(project, me: author.device, in: database)
        let otherOwn = try !SharedProjectOrigin.isSomeoneElses(other, me: author.device, in: database)
        return own && !otherOwn
    }

    /// Of `held` (ids another project holds here, with that project), those `project` leaves out:
    /// the others, which `project` keeps, their holder gives up now (`release`) and remembers as
    /// left out, for `project`'s write that follows.
    private func taking<Kind>(_ kind: LeftOutIDs.Kind, _ held: [TypedIdentifier<Kind>: ProjectID], into project: ProjectID,
                              release: (TypedIdentifier<Kind>, ProjectID) throws -> Void) throws -> Set<TypedIdentifier<Kind>> {
        var outside = Set<TypedIdentifier<Kind>>()
        for (id, holder) in held.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
            guard try keeps(project, over: holder) else { outside.insert(id); continue }
            try release(id, holder)
            try leftOut(holder).remember(kind, [id.bytes])
        }
        return outside
    }

    /// The nodes the records show present (`binder`) that are absent from the project here and left
    /// out of it: held by another project (a receive, `taking`, first takes those `project` keeps,
    /// and the list becomes the rest) or, for a commit, listed as left out.
    func nodesLeftOut(of binder: [NodeID: NodeValue], absentFrom present: Set<NodeID>, in project: ProjectID,
                      taking: Bool = false) throws -> Set<NodeID> {
        let candidates = binder.compactMap { id, value -> NodeID? in
            guard case .present = value, !present.contains(id) else { return nil }
            return id
        }
        return try leftOut(.node, candidates, in: project, taking: taking, holders: { try store.holders(ofNodes: $0, outside: project) },
                           release: { try store.releaseSyncedNode($0, of: $1, to: project) })
    }

    /// The entries the records show present (`held`) that are absent from the project here and left
    /// out of it (as `nodesLeftOut`).
    func entriesLeftOut(of held: [EntryID: EntryValue], absentFrom here: Set<EntryID>, in project: ProjectID,
                        taking: Bool = false) throws -> Set<EntryID> {
        let candidates = held.compactMap { id, value -> EntryID? in
            guard case .present = value, !here.contains(id) else { return nil }
            return id
        }
        return try leftOut(.entry, candidates, in: project, taking: taking, holders: { try store.holders(ofEntries: $0, outside: project) },
                           release: { try store.releaseSyncedEntry($0, of: $1, to: project) })
    }

    /// Of `candidates` (absent from the project here, present in its records), those left out.
    private func leftOut<Kind>(_ kind: LeftOutIDs.Kind, _ candidates: [TypedIdentifier<Kind>], in project: ProjectID, taking: Bool,
                               holders: ([TypedIdentifier<Kind>]) throws -> [TypedIdentifier<Kind>: ProjectID],
                               release: (TypedIdentifier<Kind>, ProjectID) throws -> Void) throws -> Set<TypedIdentifier<Kind>> {
        let held: [TypedIdentifier<Kind>: ProjectID] = candidates.isEmpty ? [:] : try holders(candidates)
        guard taking else {
            let listed = try leftOut(project).all(kind)
            return Set(held.keys).union(candidates.filter { listed.contains($0.bytes) })
        }
        let outside = try self.taking(kind, held, into: project, release: release)
        try leftOut(project).set(kind, to: Set(outside.map(\.bytes)))
        return outside
    }

    /// `content`, to be written to a document that holds `stored`, without the blocks another
    /// project keeps here (remembered as left out; those this project keeps are taken from their
    /// holder); the blocks written are no longer left out. Only blocks `stored` lacks are looked up
    /// (the stored ones are this document's).
    func showable(_ content: DocumentContent, stored: DocumentContent, in project: ProjectID) throws -> DocumentContent {
        let here = Set(stored.blocks.map(\.id))
        let fresh = content.blocks.map(\.id).filter { !here.contains($0) }
        let held: [BlockID: ProjectID] = fresh.isEmpty ? [:] : try store.holders(ofBlocks: fresh, outside: project)
        let outside = try taking(.block, held, into: project) { try store.releaseSyncedBlock($0, of: $1, to: project) }
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

    /// What the store leaves out of `project` here (`LeftOutIDs`), by kind and by the project that
    /// holds the ids now, for the owner to read (`vaultctl sync status`). An id listed that no other
    /// project holds any more is not counted: the next receive writes it.
    func leftOutHere(of project: ProjectID) throws -> [SyncLeftOut] {
        let list = leftOut(project)
        let held: [(LeftOutIDs.Kind, [ProjectID])] = [
            (.node, Array(try store.holders(ofNodes: try list.all(.node).map { try NodeID(bytes: $0) }, outside: project).values)),
            (.block, Array(try store.holders(ofBlocks: try list.all(.block).map { try BlockID(bytes: $0) }, outside: project).values)),
            (.entry, Array(try store.holders(ofEntries: try list.all(.entry).map { try EntryID(bytes: $0) }, outside: project).values)),
        ]
        var items: [SyncLeftOut] = []
        for (kind, holders) in held {
            for (holder, ids) in Dictionary(grouping: holders, by: { $0 }).sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
                items.append(SyncLeftOut(kind: kind.rawValue, count: ids.count, heldBy: holder))
            }
        }
        return items
    }
}
