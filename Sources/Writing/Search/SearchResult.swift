import Registers

/// What a search found: how many documents match in all, and the first `limit` of them in reading
/// order, each with snippets of its first matching blocks. A query that matches every document of a
/// large project (a common word, a prefix) still answers in bounded time: the documents past the
/// limit, and the blocks past a document's first few, are counted, not built (a snippet decodes
/// and re-reads its block).
public struct SearchResults: Sendable, Equatable {
    /// A screenful: what `vaultctl search` shows unless asked for more.
    public static let defaultLimit = 20
    /// Documents a search gives at most, however many are asked for.
    public static let maximumLimit = 10_000

    /// How many documents match in all (what `writing.search` records as `hits`).
    public let total: Int
    /// The first of them, in reading order (at most the limit asked for).
    public let hits: [SearchHit]
}

/// What a search found in one document: its first matching blocks, in reading order, each with a
/// short snippet of its text around the first match, and how many blocks and matches there are in all.
public struct SearchHit: Sendable, Equatable {
    /// Blocks of a document given with their snippets; the rest are counted in `matchedBlocks`.
    public static let maximumSnippets = 3

    public let document: NodeID
    /// The first matching blocks (at most `maximumSnippets`).
    public let blocks: [BlockMatch]
    /// How many blocks of the document match.
    public let matchedBlocks: Int
    /// How many times the query's terms matched in the document.
    public let matches: Int
}

public struct BlockMatch: Sendable, Equatable {
    public let block: BlockID
    public let kind: BlockKind
    /// A few words around the block's first match, "…" where the text goes on.
    public let snippet: String
    public let matches: Int
}

extension SearchIndex {
    /// The documents in which every term of `query` matches, the first `limit` of them (in the
    /// order they were indexed) with their snippets; the rest are counted, not built.
    func search(_ query: SearchQuery, limit: Int = SearchResults.defaultLimit) -> SearchResults {
        let terms = query.terms.map(DocumentIndex.Term.init)
        let shown = max(0, min(limit, SearchResults.maximumLimit))
        var total = 0
        var hits: [SearchHit] = []
        for document in documents {
            guard let found = document.matches(terms, in: text) else { continue }
            total += 1
            if hits.count < shown { hits.append(hit(document, found.flatMap { $0 })) }
        }
        return SearchResults(total: total, hits: hits)
    }

    /// A document's hit: every matching block counted, the first few with a snippet.
    func hit(_ document: DocumentIndex, _ postings: [DocumentIndex.Posting]) -> SearchHit {
        let blocks = Dictionary(grouping: postings, by: \.block)
        let matching = blocks.keys.sorted()
        let counts = matching.map { Set(blocks[$0] ?? []).count }
        let shown = zip(matching, counts).prefix(SearchHit.maximumSnippets).map { index, count in
            let block = document.block(index, in: text)
            let first = blocks[index]?.map(\.position).min() ?? 0
            return BlockMatch(block: block.id, kind: block.kind, snippet: SearchSnippet.around(first, in: block), matches: count)
        }
        return SearchHit(document: document.id, blocks: shown, matchedBlocks: matching.count, matches: counts.reduce(0, +))
    }
}
