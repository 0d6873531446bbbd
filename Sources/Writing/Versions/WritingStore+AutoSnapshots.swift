import CryptoVault

/// What a writer's edit did (`editDocumentContent`): the content change and the automatic snapshots
/// it took.
public struct EditedContent: Sendable {
    public let change: ContentChange
    /// In the order taken: the document left, on a switch, then this one when it was due.
    public let autoSnapshots: [AutoSnapshot]
}

/// Automatic snapshots as a writer edits (the seed's AutoSnapshotService, SECURITY.md §15.2): the
/// editing paths (`vaultctl doc write`, `template use`, `doc import`, the console's save) write
/// through `editDocumentContent`, which runs `AutoSnapshotService` on the counters this device keeps
/// for the project (`writing_auto_snapshots`), in the edit's own transaction. So a snapshot is taken
/// after 3 minutes of active editing, every 500 characters of change and on every switch to another
/// document of the project, the same whether the edits come from one console session, a daemon or
/// one `vaultctl` process each. Other content writes (a restore, a branch decision, a peer's edit
/// synced in) take their own versions or are not this writer's editing, and go through
/// `replaceDocumentContent`.
extension WritingStore {
    var autoSnapshotTable: AutoSnapshotTable { AutoSnapshotTable(database: transaction.database) }

    /// Writes `content` as the document's (`replaceDocumentContent`) as a writer's edit, and takes
    /// the automatic snapshots it makes due. A write that changes nothing is no edit.
    @discardableResult
    public func editDocumentContent(of document: NodeID, in projectID: ProjectID, with content: DocumentContent) throws -> EditedContent {
        try editDocumentContent(of: document, in: projectID, with: content, wholeText: false)
    }

    /// `wholeText`: the writer gave the document's whole text (`writeDocument`), so words a sync
    /// brought are no longer in it unseen (a version or a merge kept them): the row's `received`
    /// mark is cleared. Any other edit (a snippet, an import, a template, the console's block save)
    /// changes part of a text that still holds them, and the mark stays until such a write.
    func editDocumentContent(of document: NodeID, in projectID: ProjectID, with content: DocumentContent,
                             wholeText: Bool) throws -> EditedContent {
        var before = DocumentContent()
        let change = try replaceDocumentContent(of: document, in: projectID, with: content) { before = $0 }
        guard before != content else { return EditedContent(change: change, autoSnapshots: []) }
        let counted = CharacterChange.between(before, content)
        let project = try writable(projectID), deviceID = try self.deviceID()
        // The document last edited may have been removed since (its row then names nothing): a new start.
        let stored = try autoSnapshotTable.row(of: project.id, device: deviceID).flatMap { try nodeTable.row($0.document) == nil ? nil : $0 }
        var state = stored?.state ?? AutoSnapshotState()
        // A snapshot of the document taken since the counters were kept (titled, a restore, a branch
        // decision, another process's) covered the edits they count.
        if let stored, try latestSequence(of: stored.document) != stored.sequence {
            state = AutoSnapshotPolicy(state: state).resetting()
        }
        let service = AutoSnapshotService(clock: clock, current: stored.map { ($0.document, project.id) }, state: state) { document, projectID in
            try self.createSnapshot(of: document, in: projectID)
        }
        let taken = try service.edited(document, in: project.id, inserted: counted.inserted, deleted: counted.deleted)
        let received = !wholeText && stored?.document == document && stored?.received == true
        try autoSnapshotTable.save(AutoSnapshotTable.Row(project: project.id, deviceID: deviceID, document: document,
                                                         sequence: try latestSequence(of: document), state: service.state,
                                                         received: received))
        return EditedContent(change: change, autoSnapshots: taken)
    }

    /// The sequence of the document's latest snapshot, 0 before its first (or once it is removed).
    private func latestSequence(of document: NodeID) throws -> Int {
        try snapshotTable.latest(of: document)?.sequence ?? 0
    }
}

extension AutoSnapshotPolicy {
    /// The state after a snapshot: the counters at zero, the last edit kept (the run of edits goes on).
    func resetting() -> AutoSnapshotState {
        var policy = self
        policy.snapshotTaken()
        return policy.state
    }
}
