import Registers

/// An inverted index over a project's documents, in memory only (SECURITY.md §15.4): each folded
/// word maps to its postings, where it occurs (document, block, word position). It is built from
/// blocks the caller opened inside its transaction; nothing of it is ever written to disk. The
/// plaintext it keeps, the blocks' texts (for snippets) and the folded words, is in locked memory
/// (`LockedText`), wiped when the index is released; what is in ordinary memory is structure: ids,
/// kinds, positions and byte ranges.
///
/// Positions count the words of a block in reading order. A table's cells are separate fields, and
/// the position skips one between fields, so a phrase never matches across two cells.
struct SearchIndex: Sendable {
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

    /// A block as the index keeps it: its texts' places in `text`, and a table's row widths.
    struct IndexedBlock: Sendable {
        let id: BlockID
        let kind: BlockKind
        let fields: [LockedText.Location]
        let rowWidths: [Int]
    }

    let documents: [NodeID]
    let blocks: [[IndexedBlock]]
    let text: LockedText
    /// Every indexed word, sorted by its UTF-8 bytes (so a prefix's words are neighbours), with its postings.
    let words: LockedText
    let vocabulary: [(word: LockedText.Location, postings: [Posting])]

    init(_ documents: [(id: NodeID, content: DocumentContent)]) throws {
        var postings: [String: [Posting]] = [:]
        for (documentIndex, document) in documents.enumerated() {
            for (blockIndex, block) in document.content.blocks.enumerated() {
                for placed in Self.words(of: block) {
                    postings[placed.word.folded, default: []]
                        .append(Posting(document: documentIndex, block: blockIndex, position: placed.position))
                }
            }
        }
        var fieldLocations: [[LockedText.Location]] = []
        text = try LockedText(groups: documents.map { $0.content.blocks.flatMap(Self.fields(of:)) }, locations: &fieldLocations)
        blocks = zip(documents, fieldLocations).map { document, locations in
            var remaining = locations[...]
            return document.content.blocks.map { block in
                let count = 1 + block.rows.reduce(0) { $0 + $1.count }
                defer { remaining = remaining.dropFirst(count) }
                return IndexedBlock(id: block.id, kind: block.kind, fields: Array(remaining.prefix(count)), rowWidths: block.rows.map(\.count))
            }
        }
        let sorted = postings.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var wordLocations: [[LockedText.Location]] = []
        words = try LockedText(groups: sorted.map { [$0] }, locations: &wordLocations)
        vocabulary = zip(wordLocations, sorted).map { ($0[0], postings[$1] ?? []) }
        self.documents = documents.map(\.id)
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

    /// Block `block` of document `document`, its texts decoded from locked memory (for a snippet).
    func block(_ block: Int, of document: Int) -> Block {
        let indexed = blocks[document][block]
        let fields = indexed.fields.map(text.string)
        var cells = fields.dropFirst()[...]
        let rows = indexed.rowWidths.map { width in
            defer { cells = cells.dropFirst(width) }
            return Array(cells.prefix(width))
        }
        return Block(id: indexed.id, kind: indexed.kind, text: fields[0], rows: rows)
    }

    /// Where `term` occurs, sorted.
    func postings(of term: SearchQuery.Term) -> [Posting] {
        switch term {
        case .word(let word): return postings(of: word)
        case .prefix(let prefix): return prefixPostings(prefix)
        case .phrase(let words): return phrasePostings(words)
        }
    }

    func postings(of word: String) -> [Posting] {
        let bytes = Array(word.utf8)
        let index = firstWord(notBefore: bytes)
        guard index < vocabulary.count, words.withBytes(vocabulary[index].word, { $0.elementsEqual(bytes) }) else { return [] }
        return vocabulary[index].postings
    }

    /// Every posting of every word that starts with `prefix`.
    func prefixPostings(_ prefix: String) -> [Posting] {
        let bytes = Array(prefix.utf8)
        var found: [Posting] = []
        for entry in vocabulary[firstWord(notBefore: bytes)...] {
            guard words.withBytes(entry.word, { $0.starts(with: bytes) }) else { break }
            found += entry.postings
        }
        return found.sorted()
    }

    /// The index of the first word of the vocabulary that is not before `bytes` (binary search).
    func firstWord(notBefore bytes: [UInt8]) -> Int {
        var low = 0, high = vocabulary.count
        while low < high {
            let middle = (low + high) / 2
            if words.withBytes(vocabulary[middle].word, { $0.lexicographicallyPrecedes(bytes) }) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The postings of a phrase's first word where each next word is at the next position of the same block.
    func phrasePostings(_ words: [String]) -> [Posting] {
        guard var matches = words.first.map({ postings(of: $0) }) else { return [] }
        for (offset, word) in words.enumerated().dropFirst() {
            matches = Self.followed(matches, by: postings(of: word), at: offset)
            if matches.isEmpty { break }
        }
        return matches
    }

    /// The postings of `matches` that have one of `next` `offset` positions after them in the same
    /// block: one merge of the two sorted lists (a common phrase has a posting in every block, and
    /// hashing each was most of its search).
    static func followed(_ matches: [Posting], by next: [Posting], at offset: Int) -> [Posting] {
        var kept: [Posting] = []
        var cursor = next.startIndex
        for match in matches {
            let wanted = Posting(document: match.document, block: match.block, position: match.position + offset)
            while cursor < next.endIndex && next[cursor] < wanted { cursor += 1 }
            if cursor < next.endIndex && next[cursor] == wanted { kept.append(match) }
        }
        return kept
    }
}
