import CryptoVault

/// Full-text search over a project (issue 15, SECURITY.md §15.4): the project's blocks are opened in
/// this transaction, through the store's access like any read (a privileged project's only in a
/// session), indexed in memory, searched, and the index dropped when the call returns.
extension WritingStore {
    /// The documents of `projectID` in which every term of `query` matches, in reading order. The
    /// read is recorded as the vault records every read (`record.open`), and the search as
    /// `writing.search` with only the number of documents found: the query is never recorded.
    public func search(_ query: SearchQuery, in projectID: ProjectID) throws -> [SearchHit] {
        let project = try self.project(projectID)
        try checkReadable(project)
        let hits = try searchIndex(of: project).search(query)
        try record(.writingSearch, project, subject: project.id.bytes, details: [.init("hits", String(hits.count))])
        return hits
    }

    /// Every document's blocks, opened in one read (one `record.open` per 64 records, not one per document).
    func searchIndex(of project: WritingProject) throws -> SearchIndex {
        let documents = try binder(of: project).ordered().map(\.row).filter { $0.kind == .scene }
        let rows = try documents.map { try blockTable.all(in: $0.id) }
        var blocks = try openBlocks(rows.flatMap { $0 }, of: project)[...]
        return SearchIndex(zip(documents, rows).map { document, rows in
            defer { blocks = blocks.dropFirst(rows.count) }
            return (document.id, DocumentContent(blocks: Array(blocks.prefix(rows.count))))
        })
    }
}
