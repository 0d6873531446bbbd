/// A document's content as one byte string (SECURITY.md §15.2): the bytes a snapshot stores, diffs
/// against the previous version and hashes. Each block keeps its id, so a restore puts back the very
/// blocks it had (an unchanged block is kept, not resealed):
///
///     content = version:u8 (1) count:u32be (id:16 length:u32be block)*     block: SECURITY.md §14.4
///
/// Blocks in reading order; nothing after the last. `decode` refuses anything else as `.damagedRecord`.
public enum SnapshotContent {
    public static let version: UInt8 = 1

    public static func encode(_ content: DocumentContent) -> [UInt8] {
        var out: [UInt8] = [version]
        ByteReader.appendLength(content.blocks.count, &out)
        for block in content.blocks {
            let encoded = BlockEncoding.encode(block)
            out += block.id.bytes
            ByteReader.appendLength(encoded.count, &out)
            out += encoded
        }
        return out
    }

    public static func decode(_ bytes: [UInt8]) throws(WritingError) -> DocumentContent {
        var reader = ByteReader(bytes: bytes, what: "a snapshot's content")
        guard try reader.byte() == version else { throw reader.damaged("an unknown content version") }
        let count = try reader.length()
        // Each block takes at least 20 bytes: a count past what the bytes can hold is damage, found before any allocation.
        guard count <= bytes.count / 20 else { throw reader.damaged("a block count past the end") }
        var blocks: [Block] = []
        blocks.reserveCapacity(count)
        for _ in 0..<count {
            let id = try BlockID.parsed(Array(try reader.bytes(BlockID.size)))
            let value = Array(try reader.bytes(try reader.length()))
            blocks.append(try BlockEncoding.decode(value, id: id))
        }
        guard reader.isAtEnd else { throw reader.damaged("bytes after the last block") }
        return DocumentContent(blocks: blocks)
    }
}
