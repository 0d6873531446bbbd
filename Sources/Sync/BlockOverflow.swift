import CryptoVault
import Writing

/// A block the merge makes longer than the writing store keeps (SECURITY.md §19.3, review 17 s8,
/// F12). Each device's records keep a block within the store's bound, but two devices typing in one
/// block concurrently can together pass it (700 KiB, and 200 KiB more on each side): the store would
/// refuse the merged block, so the whole batch, on every device, for good. So a replica **shows** such
/// a block as several, by a rule of the records alone that every device computes alike: the block
/// itself holding the first part of its text (with its cells), then continuation blocks of derived
/// ids holding the rest, each at most `WritingLimits.maximumBlockBytes`. The records are unchanged:
/// the characters stay in the one block's sequence, and a commit joins the continuations back
/// (`joined`), so what the owner types in a continuation is an edit of the block it continues.
enum BlockOverflow {
    static let label = "SealedVault block continuation v1"

    /// The bytes `block` holds as the store counts them: its text and cells (`BlockEncoding.textBytes`).
    static func bytes(of block: Block) -> Int {
        block.text.utf8.count + block.rows.reduce(0) { $0 + $1.reduce(0) { $0 + $1.utf8.count } }
    }

    /// The id of `block`'s continuation number `index` (from 1): SHA-256(label || 0x00 || block ||
    /// u32 index)[:16].
    static func continuation(of block: BlockID, _ index: Int) -> BlockID {
        let number = UInt32(index)
        let parts = block.bytes + [UInt8(number >> 24), UInt8(number >> 16 & 0xFF), UInt8(number >> 8 & 0xFF), UInt8(number & 0xFF)]
        // Sixteen bytes always make a BlockID: the try cannot fail.
        return try! BlockID(bytes: Array(SHA256.hash(Array(label.utf8) + [0] + parts).prefix(16)))
    }

    /// `blocks` (a document's, in reading order) with each block over the bound shown as itself and
    /// its continuations, right after it; every other block as it is. A continuation skips a number
    /// whose id is `taken`: for a replica, any block id its records hold, in any document of the
    /// project (`SyncReplica.holdsBlock`), so that no piece is ever another document's block (review
    /// 17 s9, N-s9-7: a continuation's id is computable by anyone who knows the block's).
    static func split(_ blocks: [Block], besides taken: (BlockID) -> Bool) -> [Block] {
        guard blocks.contains(where: { bytes(of: $0) > WritingLimits.maximumBlockBytes }) else { return blocks }
        return blocks.flatMap { pieces(of: $0, besides: taken) }
    }

    /// `split` where the only ids taken are the document's own.
    static func split(_ blocks: [Block]) -> [Block] {
        let ids = Set(blocks.map(\.id))
        return split(blocks) { ids.contains($0) }
    }

    /// `block` as the store keeps it: its first piece under its own id (with its cells, which count
    /// against the first piece's bound), then each further piece as a continuation of its kind, with
    /// no cells, numbered from 1 and skipping a number whose id is `taken`.
    static func pieces(of block: Block, besides taken: (BlockID) -> Bool) -> [Block] {
        guard bytes(of: block) > WritingLimits.maximumBlockBytes else { return [block] }
        let cells = bytes(of: block) - block.text.utf8.count
        let texts = cut(block.text, first: max(0, WritingLimits.maximumBlockBytes - cells))
        var out = [Block(id: block.id, kind: block.kind, text: texts[0], rows: block.rows)]
        var index = 0
        for text in texts.dropFirst() {
            var id: BlockID
            repeat {
                index += 1
                id = continuation(of: block.id, index)
            } while taken(id)
            out.append(Block(id: id, kind: block.kind, text: text, rows: []))
        }
        return out
    }

    /// `text` cut into pieces of at most `first` UTF-8 bytes for the first and
    /// `WritingLimits.maximumBlockBytes` for each next: each piece as long as its bound allows,
    /// ending after the last space, tab or line feed within it when there is one (so words stay
    /// whole) and else at the last whole scalar. The last piece is the rest.
    static func cut(_ text: String, first: Int) -> [String] {
        let utf8 = Array(text.utf8)
        var pieces: [String] = [], start = 0, bound = first
        while utf8.count - start > bound {
            var end = start + bound
            while end > start, utf8[end] & 0xC0 == 0x80 { end -= 1 }  // a scalar's first byte
            if let space = utf8[start..<end].lastIndex(where: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A }) { end = space + 1 }
            pieces.append(String(decoding: utf8[start..<end], as: UTF8.self))
            start = end
            bound = WritingLimits.maximumBlockBytes
        }
        pieces.append(String(decoding: utf8[start...], as: UTF8.self))
        return pieces
    }

    /// `content`, a document as the store holds it, with the continuations of `shown`'s blocks (the
    /// document as the records hold it, unsplit) joined back into the blocks they continue: the
    /// block at the place of its first piece here, its text its pieces' texts here in their order
    /// (those the owner deleted left out), its kind and cells its own piece's (the first piece's
    /// when its own is gone). A block with no piece here is gone; other blocks are as they are.
    ///
    /// A continuation is known by its id among the blocks the records do not hold: the numbers a
    /// block may show now, and two more (one left here from before the block shrank), each number
    /// whose id is `taken` skipped as `split` skips it.
    static func joined(_ content: DocumentContent, shown: [Block], besides taken: (BlockID) -> Bool) -> DocumentContent {
        let known = Set(shown.map(\.id))
        let unknown = Set(content.blocks.map(\.id)).subtracting(known)
        guard !unknown.isEmpty else { return content }
        var origin: [BlockID: (block: BlockID, index: Int)] = [:]
        for block in shown {
            var numbers = bytes(of: block) / WritingLimits.maximumBlockBytes + 3, index = 0
            while numbers > 0 {
                index += 1
                let id = continuation(of: block.id, index)
                if taken(id) { continue }
                numbers -= 1
                if unknown.contains(id) { origin[id] = (block.id, index) }
            }
        }
        guard !origin.isEmpty else { return content }
        var order: [BlockID] = [], parts: [BlockID: [(index: Int, block: Block)]] = [:]
        for block in content.blocks {
            let (id, index) = origin[block.id] ?? (block.id, 0)
            if parts[id] == nil { order.append(id) }
            parts[id, default: []].append((index, block))
        }
        return DocumentContent(blocks: order.map { id in
            let pieces = parts[id]!.sorted { $0.index < $1.index }
            let head = pieces[0].block
            return Block(id: id, kind: head.kind, text: pieces.map(\.block.text).joined(), rows: pieces[0].index == 0 ? head.rows : [])
        })
    }

    /// `joined` where the only ids taken are those of `shown`.
    static func joined(_ content: DocumentContent, shown: [Block]) -> DocumentContent {
        let ids = Set(shown.map(\.id))
        return joined(content, shown: shown) { ids.contains($0) }
    }
}
