/// Reads the length-prefixed pieces of the writing model's sealed values (SECURITY.md §14.4-14.5),
/// refusing any length that runs past the end and any text that is not UTF-8 as `.damagedRecord`.
///
/// Generic over where the bytes lie, so an opened record is decoded in place, in the transaction's
/// locked scratch buffer (an `UnsafeRawBufferPointer`), and never copied whole into an ordinary
/// array that nobody wipes; only the decoded strings themselves leave locked memory.
struct LengthPrefixedReader<Bytes: RandomAccessCollection<UInt8>> where Bytes.Index == Int {
    let bytes: Bytes
    /// What is read, for messages ("a block's sealed value").
    let what: String
    private(set) var offset = 0

    init(bytes: Bytes, what: String) {
        self.bytes = bytes
        self.what = what
    }

    var isAtEnd: Bool { offset == bytes.count }

    func damaged(_ detail: String) -> WritingError {
        WritingError(.damagedRecord, "\(what) is damaged: \(detail)")
    }

    mutating func byte() throws(WritingError) -> UInt8 { try bytes(1).first ?? 0 }

    mutating func bytes(_ count: Int) throws(WritingError) -> Bytes.SubSequence {
        guard count <= bytes.count - offset else { throw damaged("a length runs past the end") }
        defer { offset += count }
        let start = bytes.startIndex + offset
        return bytes[start..<(start + count)]
    }

    /// A u32 big-endian length or count.
    mutating func length() throws(WritingError) -> Int {
        try bytes(4).reduce(0) { $0 << 8 | Int($1) }
    }

    mutating func string() throws(WritingError) -> String {
        let raw = try bytes(try length())
        guard let text = String(validating: raw, as: UTF8.self) else { throw damaged("text that is not UTF-8") }
        return text
    }

    static func appendLength(_ value: Int, _ out: inout [UInt8]) {
        let v = UInt32(value)
        out += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    static func appendString(_ text: String, _ out: inout [UInt8]) {
        appendLength(text.utf8.count, &out)
        out += text.utf8
    }
}

/// The reader over an array (a snapshot delta, a value a test holds), and the encoders' helpers.
typealias ByteReader = LengthPrefixedReader<[UInt8]>
