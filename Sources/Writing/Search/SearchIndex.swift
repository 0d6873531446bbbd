/// An inverted index over a project's documents, in memory only (SECURITY.md §15.4): each folded
/// word maps to its postings, where it occurs (document, block, word position). It is built for one
/// search from blocks the caller opened inside its transaction, and dropped with it; nothing of it
/// is ever written to disk.
///
/// Positions count the words of a block in reading order. A table's cells are separate fields, and
/// the position skips one between fields, so a phrase never matches across two cells.
struct SearchIndex {
    struct Posting: Hashable, Comparable {
        let document: Int
        let block: Int
        let position: Int

        static func < (a: Posting, b: Posting) -> Bool {
            (a.document, a.block, a.position) < (b.document, b.block, b.position)
        }
    }

    /// A word of a block, with the field it is in and its position in the block.
    struct PlacedWord {
        let field: Int
        let word: SearchTokenizer.Word
        let position: Int
    }

    let documents: [(id: NodeID, content: DocumentContent)]
    private(set) var postings: [String: [Posting]] = [:]
    /// Every indexed word, sorted, for prefix look-ups by binary search.
    private(set) var vocabulary: [String] = []

    init(_ documents: [(id: NodeID, content: DocumentContent)]) {
        self.documents = documents
        for (documentIndex, document) in documents.enumerated() {
            for (blockIndex, block) in document.content.blocks.enumerated() {
                for placed in Self.words(of: block) {
                    postings[placed.word.folded, default: []]
                        .append(Posting(document: documentIndex, block: blockIndex, position: placed.position))
                }
            }
        }
        vocabulary = postings.keys.sorted()
    }

    /// The texts of a block that are searched: its text, and a table's cells.
    static func fields(of block: Block) -> [String] {
        [block.text] + block.rows.joined()
    }

    /// A block's words in order, numbered as the index numbers them.
    static func words(of block: Block) -> [PlacedWord] {
        var placed: [PlacedWord] = []
        var position = 0
        for (field, text) in fields(of: block).enumerated() {
            for word in SearchTokenizer.words(in: text) {
                placed.append(PlacedWord(field: field, word: word, position: position))
                position += 1
            }
            position += 1
        }
        return placed
    }

    /// Where `term` occurs, sorted.
    func postings(of term: SearchQuery.Term) -> [Posting] {
        switch term {
        case .word(let word): return postings[word] ?? []
        case .prefix(let prefix): return prefixPostings(prefix)
        case .phrase(let words): return phrasePostings(words)
        }
    }

    /// Every posting of every word that starts with `prefix`.
    func prefixPostings(_ prefix: String) -> [Posting] {
        var low = 0, high = vocabulary.count
        while low < high {
            let middle = (low + high) / 2
            if vocabulary[middle] < prefix { low = middle + 1 } else { high = middle }
        }
        var found: [Posting] = []
        for word in vocabulary[low...] {
            guard word.hasPrefix(prefix) else { break }
            found += postings[word] ?? []
        }
        return found.sorted()
    }

    /// The postings of a phrase's first word where each next word is at the next position of the same block.
    func phrasePostings(_ words: [String]) -> [Posting] {
        guard var matches = words.first.map({ postings[$0] ?? [] }) else { return [] }
        for (offset, word) in words.enumerated().dropFirst() {
            let next = Set(postings[word] ?? [])
            matches = matches.filter { next.contains(Posting(document: $0.document, block: $0.block, position: $0.position + offset)) }
            if matches.isEmpty { break }
        }
        return matches
    }
}
