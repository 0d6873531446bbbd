import CryptoVault

/// What a write of a document's whole text did (`vaultctl doc write`, SECURITY.md §15.6).
public struct DocumentWrite: Sendable {
    /// The write (blocks sealed, kept, removed; the automatic snapshots it took).
    public let edited: EditedContent
    /// The version holding the text the write replaced (nil: it replaced nothing, or only this
    /// device's own words since its last write, which the automatic snapshots cover).
    public let before: SnapshotID?
    /// The document had moved on since the version the text was written from: the two were merged.
    public let merged: Bool
    /// Places both changed since that version: the written text is in the document there, and
    /// the document's own words there are in `branch`.
    public let conflicts: Int
    public let branch: BranchID?
}

/// Writes of a document's whole text, and the versions they are made from (SECURITY.md §15.6): a
/// reader is given the version it read (`versionForReading`); a write made from it (`base`) merges
/// with whatever the document took since (a sync, another command) rather than replacing it, and a
/// write with no base replaces the document after keeping what it replaces as a version, so no
/// write drops words it did not see without a version or branch that still holds them.
extension WritingStore {
    /// The version the document's current text is: its latest snapshot when that holds the text, else
    /// a new automatic snapshot of it. Nil where nothing may be written (an archived project, or one
    /// shared with this device to view only): there no write can be made from it either.
    public func versionForReading(of document: NodeID, in projectID: ProjectID) throws -> SnapshotID? {
        let project = try self.project(projectID)
        guard !project.isArchived, !project.isViewOnly else { return nil }
        return try createSnapshot(of: document, in: projectID).id
    }

    /// Makes `written` the document's text. With `base` (a version of this document: what the writer
    /// read), a document that moved on since is merged with it (`BasedMerge`): places only one side
    /// changed take that side; a place both changed takes the written text, and the document's own
    /// words there are kept in a branch of kind syncConflict (listed by `vaultctl conflicts`), whose
    /// adoption puts them back. Without `base`, the document is replaced. Either way the text as it
    /// was just before is a version first (`before`).
    public func writeDocument(_ written: DocumentContent, of document: NodeID, in projectID: ProjectID,
                              base: SnapshotID?) throws -> DocumentWrite {
        let current = try documentContent(of: document, in: projectID)
        let baseContent = try base.map { try snapshotContent($0, of: document, in: projectID) }
        let text = written.reusingIDs(of: baseContent ?? current)
        guard let baseContent, baseContent != current else {
            let before = text == current ? nil : try keptBeforeWrite(of: document, in: projectID, current: current, base: base)
            return DocumentWrite(edited: try editDocumentContent(of: document, in: projectID, with: text, wholeText: true), before: before,
                                 merged: false, conflicts: 0, branch: nil)
        }
        let before = try createSnapshot(of: document, in: projectID).id
        let merge = try BasedMerge.merge(base: baseContent, document: current, written: text)
        let edited = try editDocumentContent(of: document, in: projectID, with: merge.document, wholeText: true)
        guard let unseen = merge.unseen, let base else {
            return DocumentWrite(edited: edited, before: before, merged: true, conflicts: 0, branch: nil)
        }
        let after = try createSnapshot(of: document, in: projectID)
        let branch = try createBranch(of: document, in: projectID, base: after.id, content: unseen, kind: .syncConflict,
                                      provenance: "written from version \(base.hex) after the document moved on: its words there")
        return DocumentWrite(edited: edited, before: before, merged: true, conflicts: merge.conflicts, branch: branch.id)
    }

    /// The version that holds the text a write replaces. With a base the document still holds, that
    /// is the base. Otherwise a snapshot of it (the latest, when it holds it already), except when the
    /// document is exactly what this device's last write left (the row names it, no snapshot since,
    /// and no sync wrote into it since: its own words, which the automatic snapshots cover as ever):
    /// words that came from elsewhere (a sync, another device) since are kept; an empty document has
    /// none to keep.
    private func keptBeforeWrite(of document: NodeID, in projectID: ProjectID, current: DocumentContent, base: SnapshotID?) throws -> SnapshotID? {
        if let base { return base }
        guard !current.blocks.isEmpty else { return nil }
        let latest = try snapshotTable.latest(of: document)?.sequence ?? 0
        if let row = try autoSnapshotTable.row(of: projectID, device: try deviceID()), row.document == document,
           row.sequence == latest, row.state.editsSinceSnapshot > 0, !row.received {
            return nil
        }
        return try createSnapshot(of: document, in: projectID).id
    }
}
