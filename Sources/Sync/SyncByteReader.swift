/// Reads a change record (SECURITY.md §19.2) front to back, refusing any length that runs past
/// the end as `.malformedRecord`. Every count it returns has been checked against the bytes left,
/// so a hostile count cannot make a caller reserve or loop more than the record holds.
struct SyncByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    static func malformed(_ detail: String) -> SyncError {
        SyncError(.malformedRecord, "the change record is malformed: \(detail)")
    }

    mutating func take(_ count: Int) throws(SyncError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw Self.malformed("a length runs past the end") }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func byte() throws(SyncError) -> UInt8 { try take(1)[0] }

    mutating func integer(_ size: Int) throws(SyncError) -> UInt64 {
        try take(size).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A UTF-8 string whose length is a big-endian integer of `lengthSize` bytes, at most `maximum` bytes.
    mutating func string(lengthSize: Int, maximum: Int) throws(SyncError) -> String {
        let length = Int(try integer(lengthSize))
        guard length <= maximum else { throw Self.malformed("a string longer than \(maximum) bytes") }
        guard let text = String(validating: try take(length), as: UTF8.self) else { throw Self.malformed("text that is not UTF-8") }
        return text
    }

    static func append(_ value: UInt64, size: Int, to out: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// `text` after its length in `lengthSize` bytes. A string longer than that length can say is
    /// refused (`invalidChange`), never cut: a cut length would sign bytes every reader misreads
    /// (review 17 s10, N-s10-2: a 256-byte order key written as length 0).
    static func append(_ text: String, lengthSize: Int, to out: inout [UInt8]) throws(SyncError) {
        guard text.utf8.count < 1 << (8 * lengthSize) else {
            throw SyncError(.invalidChange, "a string of \(text.utf8.count) bytes does not fit a length of \(lengthSize) byte(s)")
        }
        append(UInt64(text.utf8.count), size: lengthSize, to: &out)
        out += Array(text.utf8)
    }
}
