/// The compact form of a snapshot delta, as a version-4 group stores its members' deltas (SECURITY.md
/// §15.1): the same ops as the delta's version 1, each number a varint and each copy's offset told
/// relative to where the copy before it ended, so a copy of "the rest of the document" is two or
/// three bytes rather than nine that differ from one version to the next (the absolute offsets of
/// version 1 were most of what DEFLATE could not pack in a group of 500-character snapshots).
///
///     compact = op*
///     op      = varint(2 * zigzag(offset − cursor)) varint(length)   copy `length` bytes of the base from `offset`
///             | varint(2 * length + 1) bytes                          insert `length` bytes
///     cursor  = the end (offset + length) of the last copy before this op, 0 before the first
///     varint  = unsigned LEB128, 1 to 5 bytes, value < 2^32, no needless final 0x00 byte (minimal)
///     zigzag(n) = 2n for n ≥ 0, −2n − 1 for n < 0
///
/// The canonical rules are version 1's (no op of length 0, no two inserts in a row, no copy that
/// continues the copy before it, nothing after the last op), and an offset must be ≥ 0: anything
/// else is refused as `.damagedRecord`.
extension SnapshotDelta {
    /// The ops as the compact form writes them.
    func compact() -> [UInt8] {
        var out: [UInt8] = [], cursor = 0
        for operation in operations {
            switch operation {
            case .copy(let offset, let length):
                let move = offset - cursor
                Self.appendVarint(UInt64(move >= 0 ? 2 * move : -2 * move - 1) * 2, &out)
                Self.appendVarint(UInt64(length), &out)
                cursor = offset + length
            case .insert(let bytes):
                Self.appendVarint(UInt64(bytes.count) * 2 + 1, &out)
                out += bytes
            }
        }
        return out
    }

    /// Parses the compact form above, canonical form only.
    init(compact bytes: ArraySlice<UInt8>) throws(WritingError) {
        var index = bytes.startIndex, cursor = 0
        var operations: [Operation] = []
        let damaged = { (detail: String) in WritingError(.damagedRecord, "a compact snapshot delta is damaged: \(detail)") }
        while index < bytes.endIndex {
            let head = try Self.varint(bytes, &index)
            let operation: Operation
            if head & 1 == 1 {
                let length = Int(head >> 1)
                guard length <= bytes.endIndex - index else { throw damaged("an insert runs past the end") }
                operation = .insert(Array(bytes[index..<(index + length)]))
                index += length
            } else {
                let zigzag = Int(head >> 1)
                let offset = cursor + (zigzag & 1 == 0 ? zigzag >> 1 : -((zigzag + 1) >> 1))
                let length = Int(try Self.varint(bytes, &index))
                guard offset >= 0 else { throw damaged("a copy before the start of the base") }
                operation = .copy(offset: offset, length: length)
                cursor = offset + length
            }
            guard Self.isCanonical(operation, after: operations.last) else { throw damaged("not in canonical form") }
            operations.append(operation)
        }
        self.init(operations: operations)
    }

    static func appendVarint(_ value: UInt64, _ out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    /// A minimal LEB128 varint of at most 5 bytes and a value under 2^32, read at `index`.
    static func varint(_ bytes: ArraySlice<UInt8>, _ index: inout Int) throws(WritingError) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 35, by: 7) {
            guard index < bytes.endIndex else { throw WritingError(.damagedRecord, "a compact snapshot delta is damaged: a number runs past the end") }
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 {
                guard byte != 0 || shift == 0, value < 1 << 32 else {
                    throw WritingError(.damagedRecord, "a compact snapshot delta is damaged: a number not in its shortest form or past 2^32")
                }
                return value
            }
        }
        throw WritingError(.damagedRecord, "a compact snapshot delta is damaged: a number longer than 5 bytes")
    }
}
