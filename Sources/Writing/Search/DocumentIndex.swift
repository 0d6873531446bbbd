import Registers

/// One document's part of a project's search index (SECURITY.md §15.4): each folded word of its
/// blocks, sorted by UTF-8 bytes (so a prefix's words are neighbours), with its postings (block and
/// word position); and each block's texts, for snippets. The texts and words themselves are one group
/// of the index's locked text (`group`); what is kept here is structure: ids, kinds, positions and
/// byte ranges inside the group.
///
/// A document is indexed on its own, so a write to it re-indexes it and nothing else
/// (`SearchIndex.init(order:indexing:keeping:)`).
struct DocumentIndex: Sendable {
    /// Where a word occurs in the document: its block, and its position there (`SearchIndex.words(of:)`).
    struct Posting: Hashable, Comparable {
        let block: Int
        let position: Int

        static func < (a: Posting, b: Posting) -> Bool {
            (a.block, a.position) < (b.block, b.position)
        }
    }

    /// A block as the index keeps it: its texts' places in the group, and a table's row widths.
    struct IndexedBlock: Sendable {
        let id: BlockID
        let kind: BlockKind
        let fields: [Range<Int>]
        let rowWidths: [Int]
    }

    /// A word of the vocabulary: its bytes' place in the group, and its postings, sorted.
    struct Word: Sendable {
        let bytes: Range<Int>
        let postings: [Posting]
    }

    /// A query's term as the vocabulary is searched for it: folded words as UTF-8 bytes.
    enum Term {
        case word([UInt8])
        case prefix([UInt8])
        case phrase([[UInt8]])

        init(_ term: SearchQuery.Term) {
            switch term {
            case .word(let word): self = .word(Array(word.utf8))
            case .prefix(let prefix): self = .prefix(Array(prefix.utf8))
            case .phrase(let words): self = .phrase(words.map { Array($0.utf8) })
            }
        }
    }

    let id: NodeID
    let blocks: [IndexedBlock]
    let vocabulary: [Word]
    /// Where its texts and words lie in the index's locked text (set when the index is made).
    var group = LockedText.Location(chunk: 0, range: 0..<0)

    /// `content` indexed: the document's structure, and the pieces its ranges name, in order (the
    /// blocks' texts, then the sorted words), to be put in locked memory as its group.
    static func indexing(_ id: NodeID, _ content: DocumentContent) -> (document: DocumentIndex, pieces: [String]) {
        var postings: [String: [Posting]] = [:]
        for (blockIndex, block) in content.blocks.enumerated() {
            for placed in SearchIndex.words(of: block) {
                postings[placed.word.folded, default: []].append(Posting(block: blockIndex, position: placed.position))
            }
        }
        var pieces: [String] = []
        var offset = 0
        func place(_ piece: String) -> Range<Int> {
            defer { offset += piece.utf8.count; pieces.append(piece) }
            return offset..<(offset + piece.utf8.count)
        }
        let blocks = content.blocks.map { block in
            IndexedBlock(id: block.id, kind: block.kind, fields: SearchIndex.fields(of: block).map(place), rowWidths: block.rows.map(\.count))
        }
        let sorted = postings.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let vocabulary = sorted.map { Word(bytes: place($0), postings: postings[$0] ?? []) }
        return (DocumentIndex(id: id, blocks: blocks, vocabulary: vocabulary), pieces)
    }

    /// Every term's postings here, or nil when one of them does not occur (the document does not match).
    func matches(_ terms: [Term], in text: LockedText) -> [[Posting]]? {
        var found: [[Posting]] = []
        for term in terms {
            let postings = self.postings(of: term, in: text)
            if postings.isEmpty { return nil }
            found.append(postings)
        }
        return found
    }

    /// Where `term` occurs, sorted.
    func postings(of term: Term, in text: LockedText) -> [Posting] {
        switch term {
        case .word(let word): postings(of: word, in: text)
        case .prefix(let prefix): prefixPostings(prefix, in: text)
        case .phrase(let words): phrasePostings(words, in: text)
        }
    }

    func postings(of word: [UInt8], in text: LockedText) -> [Posting] {
        let index = firstWord(notBefore: word, in: text)
        guard index < vocabulary.count, text.withBytes(group.piece(vocabulary[index].bytes), { $0.elementsEqual(word) }) else { return [] }
        return vocabulary[index].postings
    }

    /// Every posting of every word that starts with `prefix`.
    func prefixPostings(_ prefix: [UInt8], in text: LockedText) -> [Posting] {
        var found: [Posting] = []
        for word in vocabulary[firstWord(notBefore: prefix, in: text)...] {
            guard text.withBytes(group.piece(word.bytes), { $0.starts(with: prefix) }) else { break }
            found += word.postings
        }
        return found.sorted()
    }

    /// The index of the first word of the vocabulary that is not before `bytes` (binary search).
    func firstWord(notBefore bytes: [UInt8], in text: LockedText) -> Int {
        var low = 0, high = vocabulary.count
        while low < high {
            let middle = (low + high) / 2
            if text.withBytes(group.piece(vocabulary[middle].bytes), { $0.lexicographicallyPrecedes(bytes) }) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The postings of a phrase's first word where each next word is at the next position of the same block.
    func phrasePostings(_ words: [[UInt8]], in text: LockedText) -> [Posting] {
        guard var matches = words.first.map({ postings(of: $0, in: text) }) else { return [] }
        for (offset, word) in words.enumerated().dropFirst() {
            matches = Self.followed(matches, by: postings(of: word, in: text), at: offset)
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
            let wanted = Posting(block: match.block, position: match.position + offset)
            while cursor < next.endIndex && next[cursor] < wanted { cursor += 1 }
            if cursor < next.endIndex && next[cursor] == wanted { kept.append(match) }
        }
        return kept
    }

    /// Block `index`, its texts decoded from locked memory (for a snippet).
    func block(_ index: Int, in text: LockedText) -> Block {
        let indexed = blocks[index]
        let fields = indexed.fields.map { text.string(group.piece($0)) }
        var cells = fields.dropFirst()[...]
        let rows = indexed.rowWidths.map { width in
            defer { cells = cells.dropFirst(width) }
            return Array(cells.prefix(width))
        }
        return Block(id: indexed.id, kind: indexed.kind, text: fields[0], rows: rows)
    }
}
