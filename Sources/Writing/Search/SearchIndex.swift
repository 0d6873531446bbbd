import Registers

/// An inverted index over a project's documents, in memory only (SECURITY.md §15.4): one
/// `DocumentIndex` per document, in reading order, each mapping its folded words to where they occur
/// (block and word position). It is built from blocks the caller opened inside its transaction;
/// nothing of it is ever written to disk. The plaintext it keeps, the blocks' texts (for snippets)
/// and the folded words, is in locked memory (`LockedText`, one group per document), wiped when the
/// index is released; what is in ordinary memory is structure: ids, kinds, positions and byte ranges.
///
/// Positions count the words of a block in reading order. A table's cells are separate fields, and
/// the position skips one between fields, so a phrase never matches across two cells.
struct SearchIndex: Sendable {
    /// A word of a block, with the field it is in and its position in the block.
    struct PlacedWord {
        let field: Int
        let word: SearchTokenizer.Word
        let position: Int
    }

    /// The documents, in reading order.
    let documents: [DocumentIndex]
    let text: LockedText

    /// The documents given, in that order, each indexed from its content.
    init(_ documents: [(id: NodeID, content: DocumentContent)]) throws {
        try self.init(order: documents.map(\.id), indexing: Dictionary(documents.map { ($0.id, $0.content) }, uniquingKeysWith: { first, _ in first }),
                      keeping: nil)
    }

    /// The index of the documents `order` names, in that order: each one in `contents` indexed from
    /// its content, every other one kept from `previous` as it was there (its texts and words copied,
    /// locked memory to locked memory). A write to one document of a project costs that document's
    /// indexing, not the project's. Every document named must be in `contents` or in `previous`.
    init(order: [NodeID], indexing contents: [NodeID: DocumentContent], keeping previous: SearchIndex?) throws {
        let kept = Dictionary((previous?.documents ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var documents: [DocumentIndex] = []
        var groups: [LockedText.Group] = []
        for id in order {
            if let content = contents[id] {
                let (document, pieces) = DocumentIndex.indexing(id, content)
                documents.append(document)
                groups.append(.pieces(pieces))
            } else if let document = kept[id], let previous {
                documents.append(document)
                groups.append(.copied(document.group, from: previous.text))
            } else {
                preconditionFailure("document \(id) is neither indexed nor kept: the caller reads every document the index lacks")
            }
        }
        var locations: [LockedText.Location] = []
        text = try LockedText(groups, locations: &locations)
        for index in documents.indices { documents[index].group = locations[index] }
        self.documents = documents
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
}
