/// A sync conflict's proposal (SECURITY.md §15.3, branch record version 2): a base's content with
/// one block replaced, added or taken out, and nothing else changed. Adopting it writes that block
/// alone into the document as it is now, so the other blocks keep every edit made since, whichever
/// device made it (merge-design §2: a whole-document proposal, adopted into an unedited document,
/// replaced it and undid the blocks the losing side had not seen).
enum OneBlockProposal {
    /// Whether `proposal` is `base` with only `block` changed: without it, the same blocks in the same order.
    static func changesOnly(_ block: BlockID, base: DocumentContent, proposal: DocumentContent) -> Bool {
        proposal.blocks.lazy.filter { $0.id != block }.elementsEqual(base.blocks.lazy.filter { $0.id != block })
    }

    /// The §15.1 delta from `base` (its bytes, `SnapshotContent`) to `proposal`, found block by
    /// block: each block but `block` is copied from the base, and only `block` (with the header's
    /// count) is written. `proposal` must change `block` only (`changesOnly`).
    static func delta(from base: [UInt8], to proposal: DocumentContent, changing block: BlockID) throws(WritingError) -> SnapshotDelta {
        let chunks = try chunkRanges(of: base)
        var operations: [SnapshotDelta.Operation] = []
        var header: [UInt8] = [SnapshotContent.version]
        ByteReader.appendLength(proposal.blocks.count, &header)
        append(header == Array(base.prefix(header.count)) ? .copy(offset: 0, length: header.count) : .insert(header), to: &operations)
        for proposed in proposal.blocks {
            if proposed.id != block, let range = chunks[proposed.id] {
                append(.copy(offset: range.lowerBound, length: range.count), to: &operations)
            } else {
                var chunk = proposed.id.bytes
                let encoded = BlockEncoding.encode(proposed)
                ByteReader.appendLength(encoded.count, &chunk)
                append(.insert(chunk + encoded), to: &operations)
            }
        }
        return SnapshotDelta(operations: operations)
    }

    /// The document `current` with `block` as `proposal` has it: put where the proposal puts it
    /// (after the nearest block before it there that `current` holds, else before the nearest one
    /// after it, else where it is), or taken out when the proposal has none. Nothing else changes.
    static func writing(_ block: BlockID, of proposal: DocumentContent, into current: DocumentContent) -> DocumentContent {
        var blocks = current.blocks.filter { $0.id != block }
        guard let index = proposal.blocks.firstIndex(where: { $0.id == block }) else { return DocumentContent(blocks: blocks) }
        let position = { (id: BlockID) in blocks.firstIndex { $0.id == id } }
        let at = proposal.blocks[..<index].reversed().lazy.compactMap { position($0.id) }.first.map { $0 + 1 }
            ?? proposal.blocks[(index + 1)...].lazy.compactMap { position($0.id) }.first
            ?? current.blocks.firstIndex { $0.id == block }.map { min($0, blocks.count) }
            ?? blocks.count
        blocks.insert(proposal.blocks[index], at: at)
        return DocumentContent(blocks: blocks)
    }

    /// Each block's bytes (id, length and encoding) in a content's encoding, by id.
    private static func chunkRanges(of content: [UInt8]) throws(WritingError) -> [BlockID: Range<Int>] {
        var reader = ByteReader(bytes: content, what: "a snapshot's content")
        _ = try reader.byte()
        let count = try reader.length()
        var ranges: [BlockID: Range<Int>] = [:]
        for _ in 0..<count {
            let start = reader.offset
            let id = try BlockID.parsed(Array(try reader.bytes(BlockID.size)))
            _ = try reader.bytes(try reader.length())
            ranges[id] = start..<reader.offset
        }
        return ranges
    }

    /// Appends in canonical form (§15.1): a copy that continues the one before joins it, as do two inserts.
    private static func append(_ operation: SnapshotDelta.Operation, to operations: inout [SnapshotDelta.Operation]) {
        switch (operations.last, operation) {
        case (.copy(let offset, let length)?, .copy(let next, let more)) where offset + length == next:
            operations[operations.count - 1] = .copy(offset: offset, length: length + more)
        case (.insert(let bytes)?, .insert(let more)):
            operations[operations.count - 1] = .insert(bytes + more)
        default:
            operations.append(operation)
        }
    }
}
