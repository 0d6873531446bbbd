/// Strict UTF-8 decoding of one scalar (RFC 3629): no overlong forms, no surrogates, nothing above
/// U+10FFFF. The leak guard reads payloads that may be any bytes, and an ill-formed byte must not stop
/// it: callers treat a nil answer as one byte that is not text.
enum UTF8Scalar {
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[position]
        let (length, minimum): (Int, UInt32)
        switch lead {
        case 0x00...0x7F: return (Unicode.Scalar(lead), 1)
        case 0xC2...0xDF: (length, minimum) = (2, 0x80)
        case 0xE0...0xEF: (length, minimum) = (3, 0x800)
        case 0xF0...0xF4: (length, minimum) = (4, 0x10000)
        default: return nil
        }
        guard position + length <= bytes.count else { return nil }
        var value = UInt32(lead) & (0x7F >> length)
        for offset in 1..<length {
            let continuation = bytes[position + offset]
            guard continuation & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(continuation & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
