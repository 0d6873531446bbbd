import Registers

/// What a search found in one document: the blocks where any term matched, in reading order, each
/// with a short snippet of its text around the first match.
public struct SearchHit: Sendable, Equatable {
    public let document: NodeID
    public let blocks: [BlockMatch]

    /// How many times the query's terms matched in the document.
    public var matches: Int { blocks.reduce(0) { $0 + $1.matches } }
}

public struct BlockMatch: Sendable, Equatable {
    public let block: BlockID
    public let kind: BlockKind
    /// A few words around the block's first match, "…" where the text goes on.
    public let snippet: String
    public let matches: Int
}

extension SearchIndex {
    /// The documents in which every term of `query` matches, in the order they were indexed.
    func search(_ query: SearchQuery) -> [SearchHit] {
        let perTerm = query.terms.map { postings(of: $0) }
        var documents = Set(perTerm.first?.map(\.document) ?? [])
        for postings in perTerm.dropFirst() { documents.formIntersection(postings.map(\.document)) }
        let found = Dictionary(grouping: perTerm.joined().filter { documents.contains($0.document) }, by: \.document)
        return found.keys.sorted().map { hit(document: $0, found[$0] ?? []) }
    }

    func hit(document: Int, _ postings: [Posting]) -> SearchHit {
        let blocks = Dictionary(grouping: postings, by: \.block)
        return SearchHit(document: documents[document], blocks: blocks.keys.sorted().map { index in
            let block = self.block(index, of: document)
            let first = blocks[index]?.map(\.position).min() ?? 0
            return BlockMatch(block: block.id, kind: block.kind, snippet: SearchSnippet.around(first, in: block),
                              matches: Set(blocks[index] ?? []).count)
        })
    }
}
