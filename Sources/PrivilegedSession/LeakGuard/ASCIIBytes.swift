/// Byte classes the identifier scanner asks about at every position, answered from the byte alone.
/// Identifiers are ASCII by definition (digits, Latin letters, a few separators), so a byte outside
/// ASCII is simply "not part of an identifier": that is what lets the scanner ignore UTF-8 decoding
/// and accept invalid UTF-8 unchanged.
enum ASCIIBytes {
    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10
    }

    @inline(__always) static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- 0x61 < 26
    }

    @inline(__always) static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isDigit(byte) || isLetter(byte)
    }

    @inline(__always) static func lowercased(_ byte: UInt8) -> UInt8 {
        isLetter(byte) ? byte | 0x20 : byte
    }

    @inline(__always) static func digitValue(_ byte: UInt8) -> Int {
        Int(byte &- 0x30)
    }

    /// Space or tab: what may stand inside a written identifier or between a label and its value.
    @inline(__always) static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// Any ASCII whitespace, line breaks included.
    @inline(__always) static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    /// The value of the digits in `range` of `bytes` (at most 18 digits, so no overflow).
    static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int {
        var value = 0
        for index in range { value = value * 10 + digitValue(bytes[index]) }
        return value
    }
}
