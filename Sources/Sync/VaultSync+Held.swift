import CryptoVault
import Writing

/// Documents an open editor holds sync's changes to (SECURITY.md §19.9, review 17 F10): a receive
/// leaves them as the writer has them, a commit of the writer's edits merges them with what came
/// meanwhile, and once the editor has closed a step writes what was held. The hold and its base are
/// kept in the vault (`HeldBases`), so a commit in any process merges; only the step run when the
/// editor closes is this process's (`HeldDocuments`).
extension VaultSync {
    /// The held documents of `project` in this vault, with the text the writer's edits are made from.
    func heldBases(of project: WritingProject) throws -> [NodeID: DocumentContent] {
        try HeldBases(sync: self).bases(of: project)
    }

    /// The writer's text of a held document merged with what the records brought since `base`
    /// (`BasedMerge`: the writer's text where both changed the same blocks), which is what its
    /// commit makes; where both changed the same blocks, the records' words there are kept as a
    /// syncConflict branch, so neither side's words are lost. Once committed, the writer's later
    /// edits are made from `writer`.
    func mergingHeld(_ document: NodeID, writer: DocumentContent, base: DocumentContent, replica: inout SyncReplica,
                     of project: WritingProject) throws -> DocumentContent {
        let merge = try BasedMerge.merge(base: base, document: replica.content(of: document), written: writer)
        if writer != base { try HeldBases(sync: self).rebase(document, of: project, to: writer) }
        guard let unseen = merge.unseen else { return merge.document }
        let snapshot = try store.createSnapshot(of: document, in: project.id)
        // A block another project holds here is left out of the branch as of the document (VaultSync+OtherProjects).
        _ = try store.createBranch(of: document, in: project.id, base: snapshot.id, content: try withoutBlocksHeldOutside(unseen, in: project.id), kind: .syncConflict,
                                   provenance: "changes a sync brought while an editor was open on the document: its words where both changed")
        return merge.document
    }

    /// The held documents the records removed while an editor was open on them (SECURITY.md §19.9,
    /// review 20 F20-13) that show no word typed since (the store shows their base), with the removed
    /// folders above them: a commit leaves them out, so it never writes back what the removal took;
    /// they go when the editor closes (`writeReleased`).
    func removalsAwaitingClose(_ bases: [NodeID: DocumentContent], nodes: [BinderNode], replica: SyncReplica,
                               in project: ProjectID) throws -> Set<NodeID> {
        let parents = Dictionary(uniqueKeysWithValues: nodes.map { ($0.id, $0.parent) })
        var waiting = Set<NodeID>()
        for (document, base) in bases where parents[document] != nil && replica.nodeValue(document) == .removed {
            guard try store.documentContent(of: document, in: project) == base else { continue }
            waiting.insert(document)
            var cursor = parents[document] ?? nil
            while let folder = cursor, replica.nodeValue(folder) == .removed, waiting.insert(folder).inserted { cursor = parents[folder] ?? nil }
        }
        return waiting
    }

    /// A held document the records removed, in which the writer typed since (its text is not its
    /// base): words the removal had not seen, so the commit makes it again whole, as the writer has
    /// it, and it stays on every device (§19.3: nothing typed is lost). Later edits are made from it.
    func keptFromHeldRemoval(_ document: NodeID, writer: DocumentContent, of project: WritingProject) throws -> DocumentContent {
        try HeldBases(sync: self).rebase(document, of: project, to: writer)
        return writer
    }

    /// A held document the records removed and no commit made again (no word typed in it): now its
    /// editor has closed, it goes, and so do the removed folders above it that hold nothing else.
    private func removeHeldRemoval(_ document: NodeID, parents: [NodeID: NodeID?], replica: SyncReplica, of project: WritingProject) throws {
        guard try removeFromVault(document, .scene, of: project) else { return }
        var cursor = parents[document] ?? nil
        while let folder = cursor, replica.nodeValue(folder) == .removed, try removeFromVault(folder, .chapter, of: project) {
            cursor = parents[folder] ?? nil
        }
    }

    /// Whether the receive leaves `document` as the writer has it: an editor is open on it.
    func holds(_ document: NodeID) -> Bool {
        replicas != nil && hold?.documents.contains(document) == true
    }

    /// The receive left `document` as the writer has it (`stored`) though the records changed it:
    /// the hold is kept in the vault with `stored` as its base (one kept already keeps its own).
    func held(_ document: NodeID, of project: WritingProject, stored: DocumentContent) throws {
        guard hold != nil else { return }
        try HeldBases(sync: self).hold(document, of: project, base: stored)
        stillHeld(document)
    }

    /// `document` is held and an editor in this process is open on it: once this commits, its
    /// closing writes what is held (also for a hold a killed daemon began, the editor opened again).
    func stillHeld(_ document: NodeID) {
        guard let hold else { return }
        let vault = transaction.vault
        replicas?.afterCommit { HeldDocuments.shared.hold(document, in: vault, apply: hold.apply) }
    }

    /// `document` now shows what the records make, or is gone: nothing is held for it.
    func released(_ document: NodeID, of project: WritingProject) throws {
        try HeldBases(sync: self).release(document, of: project)
        let vault = transaction.vault
        replicas?.afterCommit { HeldDocuments.shared.forget(document, in: vault) }
    }

    /// Writes what was held for the documents of `project` whose editors have closed (or that no
    /// editor in this process has open: a hold a killed daemon began): the writer's edits are
    /// committed first (merged with what came), then each shows what the records make. Returns the
    /// documents written.
    public func writeReleased(in projectID: ProjectID) throws -> Set<NodeID> {
        try commitLocalChanges(in: projectID)
        let project = try store.project(projectID)
        var working = try working(project)
        var written = Set<NodeID>()
        let parents = Dictionary(uniqueKeysWithValues: try store.nodes(in: projectID).map { ($0.id, $0.parent) })
        let present = Set(parents.keys)
        for document in try HeldBases(sync: self).documents(of: projectID).sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            guard !holds(document) else {
                stillHeld(document)
                continue
            }
            if working.replica.documents.contains(document), present.contains(document) {
                let content = working.replica.content(of: document), stored = try store.documentContent(of: document, in: projectID)
                if stored != content {
                    try store.replaceSyncedDocumentContent(of: document, in: projectID, with: try showable(content, stored: stored, in: projectID))
                    written.insert(document)
                }
            } else if present.contains(document), working.replica.nodeValue(document) == .removed {
                try removeHeldRemoval(document, parents: parents, replica: working.replica, of: project)
                written.insert(document)
            }
            try released(document, of: project)
        }
        try keep(working, of: project, agreeing: false)
        return written
    }
}
