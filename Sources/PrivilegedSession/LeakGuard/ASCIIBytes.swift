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

    /// How many ASCII letters and digits follow `start` (`start` included), counting up to `limit`.
    ///
    /// Words end at unpredictable lengths, so a byte-at-a-time loop mispredicts its exit once per
    /// word; classifying eight bytes at once (`alphanumericMask`) finds the end without that branch.
    @inline(__always)
    static func alphanumericRunLength(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> Int {
        var position = start
        while position + 8 <= limit {
            let block = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self))
            let notAlphanumeric = ~alphanumericMask(block) & highBits
            if notAlphanumeric != 0 { return position - start + notAlphanumeric.trailingZeroBitCount / 8 }
            position += 8
        }
        while position < limit, isAlphanumeric(bytes[position]) { position += 1 }
        return position - start
    }

    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// 0x80 in each byte of `block` that is an ASCII letter or digit, 0 in the others (SWAR: for a
    /// byte below 0x80, adding 0x80 - low sets its top bit exactly when it is at least `low`, and no
    /// carry crosses into the next byte).
    @inline(__always)
    static func alphanumericMask(_ block: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let ascii = ~block & highBits
        let low = block & ~highBits
        func inRange(_ value: UInt64, _ first: UInt64, _ last: UInt64) -> UInt64 {
            (value &+ ones &* (0x80 - first)) & ~(value &+ ones &* (0x7F - last)) & highBits
        }
        let digits = inRange(low, 0x30, 0x39)
        let letters = inRange(low | ones &* 0x20, 0x61, 0x7A)
        return (digits | letters) & ascii
    }

    /// The value of the digits in `range` of `bytes` (at most 18 digits, so no overflow).
    static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int {
        var value = 0
        for index in range { value = value * 10 + digitValue(bytes[index]) }
        return value
    }
}
