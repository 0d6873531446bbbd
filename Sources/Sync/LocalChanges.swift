import CryptoVault
import Writing

/// A device's own edits as change operations: the document as the person left it, compared with
/// what the replica shows, block by block (SECURITY.md §19.3). Blocks keep their ids, so only the
/// blocks written, moved or deleted become operations, and a concurrent edit of another block
/// never meets this one.
extension SyncReplica {
    /// Makes a document titled `title` at the top level, after every other.
    public mutating func createDocument(titled title: String) throws -> (document: NodeID, record: ChangeRecord) {
        let id = try NodeID.random()
        let last = binder.values.compactMap { value -> String? in
            if case .present(_, nil, let key, _) = value { return key }
            return nil
        }.max { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let record = try commit([.node(id, .present(kind: .scene, parent: nil, orderKey: OrderKey.between(last, nil), title: title))])
        return (id, record)
    }

    /// Records the document's content as `content`, or returns nil when it is what the replica shows.
    public mutating func edit(_ document: NodeID, to content: DocumentContent) throws -> ChangeRecord? {
        let operations = try operations(making: document, hold: content)
        return operations.isEmpty ? nil : try commit(operations)
    }

    /// The block operations that turn the document's current blocks into `content`'s.
    /// `creating` says the document is made by a node operation of the same record.
    public mutating func operations(making document: NodeID, hold content: DocumentContent, creating: Bool = false) throws -> [ChangeOperation] {
        var rebased: [BlockID: BlockID] = [:]
        return try operations(making: document, hold: content, creating: creating, rebased: &rebased)
    }

    /// `operations(making:hold:creating:)`, saying in `rebased` which blocks were re-based and
    /// their new ids: the caller's document must take those ids (`VaultSync.commitLocalChanges`).
    mutating func operations(making document: NodeID, hold content: DocumentContent, creating: Bool,
                             rebased: inout [BlockID: BlockID]) throws -> [ChangeOperation] {
        if !creating {
            guard case .present(.scene, _, _, _)? = nodeValue(document) else {
                throw SyncError(.invalidChange, "no document \(document) in the replica")
            }
        }
        let current = orderedBlocks(of: document)
        // A block the replica shows in pieces (over the store's bound) is one block of the records,
        // and the blocks past the document's bound (`DocumentOverflow`), never shown, are not deleted.
        let content = DocumentOverflow.restored(BlockOverflow.joined(content, shown: current.map(\.block), besides: holdsBlock),
                                                past: DocumentOverflow.parted(current.map(\.block)).past)
        var ids = Set<BlockID>()
        for block in content.blocks {
            guard ids.insert(block.id).inserted else { throw SyncError(.invalidChange, "block \(block.id) appears twice") }
            if let owner = self.document(ofBlock: block.id), owner != document {
                throw SyncError(.invalidChange, "block \(block.id) belongs to another document")
            }
        }
        let keys = Self.orderKeys(for: content.blocks.map(\.id), current: current.map { ($0.orderKey, $0.block.id) })
        var operations: [ChangeOperation] = []
        for (block, key) in zip(content.blocks, keys) {
            guard blockValue(block.id) != .present(orderKey: key, block: block) else { continue }
            let edits = textEdits(of: block.id, to: block.text)
            if characterCount(of: block.id) + Self.typed(by: edits) > TextSequence.maximumCharacters {
                let fresh = try BlockID.random()
                rebased[block.id] = fresh
                operations += Self.rebasing(block, as: fresh, orderKey: key, in: document, device: author?.device)
                continue
            }
            // The value without its text: the text travels as the characters that changed.
            operations.append(.block(document: document, block.id, .present(orderKey: key, block: Block(id: block.id, kind: block.kind, rows: block.rows))))
            if !edits.isEmpty { operations.append(.text(document: document, block.id, edits)) }
        }
        for (_, block) in current where !ids.contains(block.id) {
            operations.append(.block(document: document, block.id, .deleted))
        }
        return operations
    }

    /// A block whose text sequence would pass `TextSequence.maximumCharacters` (every character
    /// ever typed in it, deleted ones included: SECURITY.md §19.2) re-based: written as a new block,
    /// `fresh`, with its order key, kind, cells and whole text typed anew, and the old one deleted.
    /// No receiver would take another edit of the old sequence, so without this a long-lived block
    /// would stop syncing; a concurrent edit of the old block meets the deletion as a register
    /// conflict (§19.3), its words in a branch. The new block comes first, so a receiver that takes
    /// the records one at a time never shows the block gone.
    static func rebasing(_ block: Block, as fresh: BlockID, orderKey: String, in document: NodeID, device: DeviceID?) -> [ChangeOperation] {
        var operations: [ChangeOperation] = [.block(document: document, fresh, .present(orderKey: orderKey, block: Block(id: fresh, kind: block.kind, rows: block.rows)))]
        if !block.text.isEmpty { operations.append(.text(document: document, fresh, inserts(after: nil, Array(block.text.unicodeScalars)[...], typed: 0, device: device))) }
        return operations + [.block(document: document, block.id, .deleted)]
    }

    /// The character edits that turn the block's text, as the replica shows it, into `text`: the
    /// scalars deleted named by their characters, each run inserted after the character before it.
    func textEdits(of block: BlockID, to text: String) -> [TextEdit] {
        let shown = characters(of: block)
        let wanted = Array(text.unicodeScalars)
        let name = { (index: Int) in self.name(ofShown: shown.indices[index], in: block) }
        let hunks = TextDiff.hunks(from: shown.scalars, to: wanted)
        let whole = [TextDiff.Hunk(old: 0..<shown.scalars.count, new: 0..<wanted.count)]
        guard hunks.count <= ChangeRecordCodec.maximumTextEdits / 2 else { return Self.edits(replacing: whole, wanted: wanted, device: author?.device, name: name) }
        let edits = Self.edits(replacing: hunks, wanted: wanted, device: author?.device, name: name)
        // Many edits in a long block would cost a receiver more than a record may (SECURITY.md
        // §19.2's text work): one replacement of what differs costs two passes at most.
        guard edits.count * (characterCount(of: block) + Self.typed(by: edits)) <= TextSequence.maximumWork else {
            return Self.edits(replacing: whole, wanted: wanted, device: author?.device, name: name)
        }
        return edits
    }

    /// The text work (SECURITY.md §19.2) `operation` costs a replica holding this one's records: its
    /// edits times its block's characters with those it types (0 for any other operation).
    func textWork(of operation: ChangeOperation) -> Int {
        guard case .text(_, let block, let edits) = operation else { return 0 }
        return edits.count * (characterCount(of: block) + Self.typed(by: edits))
    }

    /// Each hunk as a delete of the shown characters it removes (named by their place in the shown
    /// text) and an insert after the character before it.
    static func edits(replacing hunks: [TextDiff.Hunk], wanted: [Unicode.Scalar], device: DeviceID?, name: (Int) -> CharacterID) -> [TextEdit] {
        var edits: [TextEdit] = [], typed = 0
        for hunk in hunks {
            if !hunk.old.isEmpty {
                edits.append(.delete(first: name(hunk.old.lowerBound), last: name(hunk.old.upperBound - 1)))
            }
            if !hunk.new.isEmpty {
                let anchor = hunk.old.lowerBound > 0 ? name(hunk.old.lowerBound - 1) : nil
                edits += inserts(after: anchor, wanted[hunk.new], typed: typed, device: device)
                typed += hunk.new.count
            }
        }
        return edits
    }

    /// The record's own character `offset` (counted over the inserts of one 0x04 operation) before
    /// the record has a counter: counter 0, which no record has, named in full by `SyncReplica.commit`
    /// (`namingOwnCharacters`) once the record's counter and its operations' order are known.
    static func ownCharacter(_ offset: Int, of device: DeviceID) -> CharacterID {
        CharacterID(device: device, counter: 0, offset: UInt32(offset))
    }

    /// `scalars` inserted after `anchor`, in inserts of at most `WritingLimits.maximumBlockBytes`
    /// (what one insert may hold, SECURITY.md §19.2: a block shown in pieces, `BlockOverflow`, is
    /// one block here and may be longer), each next piece after the last character of the one
    /// before (the record's own, `ownCharacter`); `typed` is how many scalars the operation's
    /// earlier inserts typed. Without a device (a replica that only receives) one insert.
    static func inserts(after anchor: CharacterID?, _ scalars: ArraySlice<Unicode.Scalar>, typed: Int, device: DeviceID?) -> [TextEdit] {
        guard let device else { return [.insert(after: anchor, text: TextSequence.string(scalars))] }
        var pieces: [TextEdit] = [], start = scalars.startIndex, anchor = anchor, typed = typed
        while start < scalars.endIndex {
            var end = start, bytes = 0
            while end < scalars.endIndex, bytes + UTF8.width(scalars[end]) <= WritingLimits.maximumBlockBytes {
                bytes += UTF8.width(scalars[end])
                end += 1
            }
            pieces.append(.insert(after: anchor, text: TextSequence.string(scalars[start..<end])))
            typed += end - start
            anchor = ownCharacter(typed - 1, of: device)
            start = end
        }
        return pieces
    }

    /// Order keys for `wanted`, keeping the current key of as many blocks as possible: those of the
    /// longest run already in order keep theirs, every other run of blocks (new, or moved) gets keys
    /// evenly spread between its neighbours' (`OrderKey.keys`). Keys come out strictly ascending in
    /// `wanted`'s order, each within `OrderKey.maximumLength` (`rekeyed`).
    static func orderKeys(for wanted: [BlockID], current: [(key: String, id: BlockID)]) -> [String] {
        let position = Dictionary(uniqueKeysWithValues: current.enumerated().map { ($1.id, $0) })
        var keys: [String?] = Array(repeating: nil, count: wanted.count)
        let positions = wanted.map { position[$0] }
        for index in longestIncreasing(positions) { keys[index] = current[positions[index]!].key }
        func below(_ a: String?, _ b: String) -> Bool { a.map { Array($0.utf8).lexicographicallyPrecedes(Array(b.utf8)) } ?? true }
        var index = 0
        while index < wanted.count {
            let lower = index > 0 ? keys[index - 1] : nil
            if let key = keys[index], below(lower, key) { index += 1; continue }
            var end = index
            while end < wanted.count, !(keys[end].map { below(lower, $0) } ?? false) { end += 1 }
            let run = OrderKey.keys(end - index, between: lower, end < wanted.count ? keys[end] : nil)
            if run.allSatisfy(OrderKey.fits) {
                keys.replaceSubrange(index..<end, with: run.map(Optional.some))
            } else {
                end = rekeyed(&keys, around: index..<end)
            }
            index = end
        }
        return keys.map { $0! }
    }

    /// Gives the run `run` keys when those between its neighbours would pass `OrderKey.maximumLength`
    /// (a newest-on-top log: each paragraph written between a heading and the last one): the run
    /// takes in its neighbours on both sides whose keys are over half the bound, and all get keys
    /// anew between the nearest kept ones, which are short enough to leave room for hundreds more
    /// inserts (review 17 s10, N-s10-2). A neighbour re-keyed is a move (0x02 with its new key),
    /// which the merge takes field by field. Should even that not fit, the whole list is re-keyed.
    /// Returns where the keys given end.
    static func rekeyed(_ keys: inout [String?], around run: Range<Int>) -> Int {
        var start = run.lowerBound, end = run.upperBound
        while start > 0, keys[start - 1]!.utf8.count > OrderKey.maximumLength / 2 { start -= 1 }
        while end < keys.count, (keys[end]?.utf8.count ?? Int.max) > OrderKey.maximumLength / 2 { end += 1 }
        var given = OrderKey.keys(end - start, between: start > 0 ? keys[start - 1] : nil, end < keys.count ? keys[end] : nil)
        if !given.allSatisfy(OrderKey.fits) { (start, end, given) = (0, keys.count, OrderKey.keys(keys.count, between: nil, nil)) }
        keys.replaceSubrange(start..<end, with: given.map(Optional.some))
        return end
    }

    /// The indices of a longest strictly increasing subsequence of the non-nil values (patience sorting).
    static func longestIncreasing(_ values: [Int?]) -> [Int] {
        var tails: [Int] = [], previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            guard let value else { continue }
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]]! < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [Int] = []
        var cursor = tails.last ?? -1
        while cursor >= 0 { result.append(cursor); cursor = previous[cursor] }
        return result.reversed()
    }
}
