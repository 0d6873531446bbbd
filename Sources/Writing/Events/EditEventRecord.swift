/// The sealed value of an edit event (SECURITY.md §15.5): the documents a writing session edited
/// and each one's word change. Sealed, not clear columns, because a word count is measured from the
/// text: session by session it tells how long a note grew, which is more than ids and times say.
///
///     record = version:u8 (1) count:u32 (document:16 words:i32)*
///
/// `count` is 1 to `WritingSessionRule.maximumDocuments`, each document at most once, in the order
/// first edited; `words` is two's complement, big-endian. Nothing follows the last document.
struct EditEventRecord: Equatable {
    static let version: UInt8 = 1
    static let entrySize = 16 + 4

    let documents: [DocumentEdit]

    init(documents: [DocumentEdit]) {
        self.documents = documents
    }

    init<Bytes: RandomAccessCollection<UInt8>>(parsing bytes: Bytes) throws(WritingError) where Bytes.Index == Int {
        var reader = LengthPrefixedReader(bytes: bytes, what: "an edit event's sealed value")
        guard try reader.byte() == Self.version else { throw reader.damaged("an unknown edit event version") }
        let count = try reader.length()
        guard (1...WritingSessionRule.maximumDocuments).contains(count) else { throw reader.damaged("\(count) documents") }
        guard count * Self.entrySize == bytes.count - 5 else { throw reader.damaged("its length is not its count's") }
        var documents: [DocumentEdit] = []
        for _ in 0..<count {
            let document = try NodeID.parsed(Array(try reader.bytes(NodeID.size)))
            let words = Int(Int32(bitPattern: UInt32(try reader.length())))
            documents.append(DocumentEdit(document: document, wordDelta: words))
        }
        guard Set(documents.map(\.document)).count == count else { throw reader.damaged("a document listed twice") }
        self.documents = documents
    }

    func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.version]
        ByteReader.appendLength(documents.count, &out)
        for edit in documents {
            out += edit.document.bytes
            ByteReader.appendLength(Int(UInt32(bitPattern: Self.clamped(edit.wordDelta))), &out)
        }
        return out
    }

    /// This record with `words` more for `document` (added at the end when it is new).
    func adding(_ words: Int, to document: NodeID) -> EditEventRecord {
        var documents = self.documents
        if let index = documents.firstIndex(where: { $0.document == document }) {
            documents[index] = DocumentEdit(document: document, wordDelta: documents[index].wordDelta + words)
        } else {
            documents.append(DocumentEdit(document: document, wordDelta: words))
        }
        return EditEventRecord(documents: documents)
    }

    /// A document holds at most 16 MiB, so fewer than 2^31 words: the clamp never bites on real
    /// edits, and keeps a hostile sum from trapping.
    static func clamped(_ words: Int) -> Int32 { Int32(clamping: words) }
}
