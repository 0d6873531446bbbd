import CryptoVault

/// Full-text search over a project (issue 15, SECURITY.md §15.4): the project's blocks are opened in
/// this transaction, through the store's access like any read (a privileged project's only in a
/// session), and indexed in memory; the index is kept in this process (`SearchIndexCache`) until
/// the project changes, the vault is released or the session ends, so the next search answers
/// from it without opening the blocks again.
extension WritingStore {
    /// The documents of `projectID` in which every term of `query` matches: how many in all, and
    /// the first `limit` in reading order with snippets of their first matching blocks
    /// (`SearchResults`). Every search is recorded as `writing.search` with only the number of
    /// documents found in all (the query is never recorded); the blocks' reads, when the index is
    /// built, as every read is (`record.open`).
    public func search(_ query: SearchQuery, in projectID: ProjectID, limit: Int = SearchResults.defaultLimit) throws -> SearchResults {
        let project = try self.project(projectID)
        try checkReadable(project)
        let results = try keptSearchIndex(of: project).search(query, limit: limit)
        try record(.writingSearch, project, subject: project.id, details: [.init("hits", String(results.total))])
        return results
    }

    /// The project's kept index if it is still the project's content, else a new one, kept. A
    /// privileged project's session is checked first: an expired session ends here, and its index
    /// goes with it (the build then fails as any read in an ended session does).
    func keptSearchIndex(of project: WritingProject) throws -> SearchIndex {
        let session = project.isPrivileged ? try readingSession(of: project) : nil
        if let session { try session.endIfExpired() }
        let stamp = try SearchIndexCache.Stamp(transaction, session: session)
        if let kept = SearchIndexCache.shared.index(of: project.id, stamp) { return kept }
        let index = try searchIndex(of: project)
        SearchIndexCache.shared.keep(index, of: project.id, stamp, builtIn: transaction)
        return index
    }

    /// Every document's blocks, opened in one read (one `record.open` per 64 records, not one per document).
    func searchIndex(of project: WritingProject) throws -> SearchIndex {
        let documents = try binder(of: project).ordered().map(\.row).filter { $0.kind == .scene }
        let rows = try documents.map { try blockTable.all(in: $0.id) }
        var blocks = try openBlocks(rows.flatMap { $0 }, of: project)[...]
        return try SearchIndex(zip(documents, rows).map { document, rows in
            defer { blocks = blocks.dropFirst(rows.count) }
            return (document.id, DocumentContent(blocks: Array(blocks.prefix(rows.count))))
        })
    }
}
