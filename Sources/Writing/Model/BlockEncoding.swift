import Registers

/// The sealed value of a block (SECURITY.md §14.4): its kind, text and table cells, in one canonical
/// encoding. The kind is also a clear column (so a document's outline is known without opening it);
/// sealing it as well binds the two, and a row whose clear kind was edited is refused as damage.
///
///     block   = version:u8 (1) kind text rows
///     kind    = length:u8 name:ASCII          ("paragraph", "heading-1".."heading-6", "list-item",
///                                               "quote", "table", "field-" FieldSlot raw value)
///     text    = length:u32be bytes:UTF-8
///     rows    = count:u32be row*               row = count:u32be cell*    cell = length:u32be bytes:UTF-8
///
/// Nothing may follow the last row; lengths are exact; every string is valid UTF-8.
public enum BlockEncoding {
    public static let version: UInt8 = 1

    public static func encode(_ block: Block) -> [UInt8] {
        var out: [UInt8] = [version]
        let kind = Array(name(of: block.kind).utf8)
        out.append(UInt8(kind.count))
        out += kind
        appendString(block.text, to: &out)
        appendLength(block.rows.count, to: &out)
        for row in block.rows {
            appendLength(row.count, to: &out)
            for cell in row { appendString(cell, to: &out) }
        }
        return out
    }

    /// Decodes the sealed value of block `id` where it lies (an array, or an opened record in locked
    /// memory); any deviation from the grammar is `.damagedRecord`.
    public static func decode<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, id: BlockID) throws(WritingError) -> Block
        where Bytes.Index == Int {
        var reader = LengthPrefixedReader(bytes: bytes, what: "a block's sealed value")
        guard try reader.byte() == version else { throw reader.damaged("an unknown encoding version") }
        let kindBytes = try reader.bytes(Int(try reader.byte()))
        guard let kind = kind(named: String(decoding: kindBytes, as: UTF8.self)) else { throw reader.damaged("an unknown block kind") }
        let text = try reader.string()
        var rows: [[String]] = []
        for _ in 0..<(try reader.length()) {
            var row: [String] = []
            for _ in 0..<(try reader.length()) { row.append(try reader.string()) }
            rows.append(row)
        }
        guard reader.isAtEnd else { throw reader.damaged("bytes after the last row") }
        return Block(id: id, kind: kind, text: text, rows: rows)
    }

    /// The kind's name, as the clear `kind` column and the encoding write it.
    public static func name(of kind: BlockKind) -> String {
        switch kind {
        case .paragraph: "paragraph"
        case .heading(let level): "heading-\(level)"
        case .listItem: "list-item"
        case .quote: "quote"
        case .table: "table"
        case .field(let slot): "field-\(slot.rawValue)"
        }
    }

    public static func kind(named name: String) -> BlockKind? {
        switch name {
        case "paragraph": return .paragraph
        case "list-item": return .listItem
        case "quote": return .quote
        case "table": return .table
        default:
            if name.hasPrefix("heading-"), let level = Int(name.dropFirst(8)), (1...6).contains(level),
               name == "heading-\(level)" { return .heading(level: level) }
            if name.hasPrefix("field-"), let slot = FieldSlot(rawValue: String(name.dropFirst(6))) { return .field(slot) }
            return nil
        }
    }

    /// The bytes of a block's text and cells, the measure `WritingLimits` bounds.
    static func textBytes(_ block: Block) -> Int {
        block.text.utf8.count + block.rows.reduce(0) { $0 + $1.reduce(0) { $0 + $1.utf8.count } }
    }

    private static func appendLength(_ value: Int, to out: inout [UInt8]) { ByteReader.appendLength(value, &out) }

    private static func appendString(_ text: String, to out: inout [UInt8]) { ByteReader.appendString(text, &out) }
}
