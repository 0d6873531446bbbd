import CryptoVault

/// Full-text search over a project (issue 15, SECURITY.md §15.4): the project's blocks are opened in
/// this transaction, through the store's access like any read (a privileged project's only in a
/// session), and indexed in memory; the index is kept in this process (`SearchIndexCache`), and the
/// next search answers from it, re-indexing only the documents written since (opened again as
/// every read is), until the vault is released or the session ends.
extension WritingStore {
    /// The documents of `projectID` in which every term of `query` matches: how many in all, and
    /// the first `limit` in reading order with snippets of their first matching blocks
    /// (`SearchResults`). Every search is recorded as `writing.search` with only the number of
    /// documents found in all (the query is never recorded); the blocks' reads, when the index is
    /// built or a changed document re-indexed, as every read is (`record.open`).
    public func search(_ query: SearchQuery, in projectID: ProjectID, limit: Int = SearchResults.defaultLimit) throws -> SearchResults {
        let project = try self.project(projectID)
        try checkReadable(project)
        let results = try keptSearchIndex(of: project).search(query, limit: limit)
        try record(.writingSearch, project, subject: project.id, details: [.init("hits", String(results.total))])
        return results
    }

    /// Changes whose subject is the project itself and that leave every document's text as it was:
    /// the kept search index survives them (any other change of the project as a whole, a project
    /// restore say, drops it; a change of one document is folded in at the next search).
    static let actionsLeavingDocuments: [AuditAction] = [
        .writingProjectRename, .writingProjectArchive, .writingProjectRegister, .writingProjectViewOnly,
        .writingEditSessionStart, .writingEditSessionEnd, .writingProjectSnapshotCreate,
    ]

    /// The project's kept index brought up to date, else a new one; kept. A privileged project's
    /// session is checked first: an expired session ends here, and its index goes with it (the
    /// build then fails as any read in an ended session does). The kept index is used only when the
    /// store's change notes can say what was written to the project since it was read; the
    /// documents they name (and any it lacks) are opened and re-indexed, the others kept.
    func keptSearchIndex(of project: WritingProject) throws -> SearchIndex {
        let session = project.isPrivileged ? try readingSession(of: project) : nil
        if let session { try session.endIfExpired() }
        let stamp = try SearchIndexCache.Stamp(transaction, session: session)
        // Taken before anything is read: whatever is written after it, the next search folds in.
        let mark = try WritingChangeMarks.shared.mark(project.id, in: transaction)
        let index: SearchIndex
        if let kept = SearchIndexCache.shared.entry(of: project.id, stamp),
           let changed = try WritingChangeMarks.shared.written(since: kept.mark, in: transaction) {
            if changed.isEmpty { return kept.index }
            index = try searchIndex(of: project, updating: kept.index, changed: changed)
        } else {
            index = try searchIndex(of: project)
        }
        SearchIndexCache.shared.keep(index, mark: mark, of: project.id, stamp, builtIn: transaction)
        return index
    }

    /// Every document's blocks, opened in one read, and indexed.
    func searchIndex(of project: WritingProject) throws -> SearchIndex {
        let documents = try documentRows(of: project)
        return try SearchIndex(order: documents.map(\.id), indexing: try contents(of: documents, in: project), keeping: nil)
    }

    /// `previous` brought up to the project's content: the documents `changed` names, and those it
    /// lacks, opened in one read and indexed anew; every other one kept as it was; all in the
    /// binder's reading order now (a move, an addition or a removal is in `changed` too).
    func searchIndex(of project: WritingProject, updating previous: SearchIndex, changed: Set<[UInt8]>) throws -> SearchIndex {
        let documents = try documentRows(of: project)
        let indexed = Set(previous.documents.map(\.id))
        let stale = documents.filter { changed.contains($0.id.bytes) || !indexed.contains($0.id) }
        return try SearchIndex(order: documents.map(\.id), indexing: try contents(of: stale, in: project), keeping: previous)
    }

    /// The project's documents (not folders), in reading order.
    private func documentRows(of project: WritingProject) throws -> [NodeTable.Row] {
        try binder(of: project).ordered().map(\.row).filter { $0.kind == .scene }
    }

    /// The documents' blocks, opened in one read (one `record.open` per 64 records, not one per document).
    private func contents(of documents: [NodeTable.Row], in project: WritingProject) throws -> [NodeID: DocumentContent] {
        let rows = try documents.map { try blockRows(in: $0.id, of: project) }
        var blocks = try openBlocks(rows.flatMap { $0 }, of: project)[...]
        var contents: [NodeID: DocumentContent] = [:]
        for (document, rows) in zip(documents, rows) {
            contents[document.id] = DocumentContent(blocks: Array(blocks.prefix(rows.count)))
            blocks = blocks.dropFirst(rows.count)
        }
        return contents
    }
}
