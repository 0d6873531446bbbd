import CryptoVault
import Writing

/// Documents an open editor holds sync's changes to (SECURITY.md §19.9, review 17 F10; `HeldDocuments`):
/// a receive leaves them as the writer has them, a commit of the writer's edits merges them with
/// what came meanwhile, and once the editor has closed a step writes what was held.
extension VaultSync {
    /// The held documents of `project` in this vault, with the text the writer's edits are made from.
    func heldBases(of project: WritingProject) -> [NodeID: DocumentContent] {
        guard replicas != nil else { return [:] }
        var bases: [NodeID: DocumentContent] = [:]
        for document in HeldDocuments.shared.documents(of: project.id, in: transaction.vault) {
            bases[document] = HeldDocuments.shared.base(of: document, in: transaction.vault)
        }
        return bases
    }

    /// The writer's text of a held document merged with what the records brought since `base`
    /// (`BasedMerge`: the writer's text where both changed the same blocks), which is what its
    /// commit makes; where both changed the same blocks, the records' words there are kept as a
    /// syncConflict branch, so neither side's words are lost. Once committed, the writer's later
    /// edits are made from `writer`.
    func mergingHeld(_ document: NodeID, writer: DocumentContent, base: DocumentContent, replica: inout SyncReplica,
                     of project: WritingProject) throws -> DocumentContent {
        let merge = try BasedMerge.merge(base: base, document: replica.content(of: document), written: writer)
        let vault = transaction.vault
        replicas?.afterCommit { HeldDocuments.shared.rebase(document, in: vault, to: writer) }
        guard let unseen = merge.unseen else { return merge.document }
        let snapshot = try store.createSnapshot(of: document, in: project.id)
        _ = try store.createBranch(of: document, in: project.id, base: snapshot.id, content: unseen, kind: .syncConflict,
                                   provenance: "changes a sync brought while an editor was open on the document: its words where both changed")
        return merge.document
    }

    /// Whether the receive leaves `document` as the writer has it: an editor is open on it.
    func holds(_ document: NodeID) -> Bool {
        replicas != nil && hold?.documents.contains(document) == true
    }

    /// The receive left `document` as the writer has it (`stored`) though the records changed it.
    func held(_ document: NodeID, of project: WritingProject, stored: DocumentContent) {
        guard let hold else { return }
        let vault = transaction.vault
        replicas?.heldProjects.insert(project.id)
        replicas?.afterCommit { HeldDocuments.shared.hold(document, of: project.id, in: vault, base: stored, apply: hold.apply) }
    }

    /// `document` now shows what the records make: nothing is held for it once this commits.
    func released(_ document: NodeID) {
        let vault = transaction.vault
        replicas?.afterCommit { HeldDocuments.shared.forget(document, in: vault) }
    }

    /// Writes what was held for the documents of `project` whose editors have closed: the writer's
    /// edits are committed first (merged with what came), then each shows what the records make.
    /// Returns the documents written.
    public func writeReleased(in projectID: ProjectID) throws -> Set<NodeID> {
        try commitLocalChanges(in: projectID)
        let project = try store.project(projectID)
        var working = try working(project)
        var written = Set<NodeID>()
        for document in heldBases(of: project).keys.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) where !holds(document) {
            if working.replica.documents.contains(document) {
                let content = working.replica.content(of: document)
                if try store.documentContent(of: document, in: projectID) != content {
                    try store.replaceSyncedDocumentContent(of: document, in: projectID, with: content)
                    written.insert(document)
                }
            }
            released(document)
        }
        try keep(working, of: project, agreeing: false)
        return written
    }
}
