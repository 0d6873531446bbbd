/// Big-endian fixed-width fields for binary formats: a writer that appends and a reader that refuses
/// to read past the end (every read is bounds-checked; the caller decides what a short read means).
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    mutating func append(_ data: [UInt8]) { bytes += data }
    mutating func append(_ value: UInt16) { appendInteger(UInt64(value), width: 2) }
    mutating func append(_ value: UInt32) { appendInteger(UInt64(value), width: 4) }
    mutating func append(_ value: UInt64) { appendInteger(value, width: 8) }

    private mutating func appendInteger(_ value: UInt64, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}

struct BinaryReader {
    struct ShortRead: Error {}

    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func read(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= remaining else { throw ShortRead() }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func readUInt16() throws -> UInt16 { UInt16(try readInteger(width: 2)) }
    mutating func readUInt32() throws -> UInt32 { UInt32(try readInteger(width: 4)) }
    mutating func readUInt64() throws -> UInt64 { try readInteger(width: 8) }

    private mutating func readInteger(width: Int) throws -> UInt64 {
        try read(width).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
