/// Splits a text into the tokens a word diff compares: runs of word characters, runs of whitespace,
/// and runs of everything else (punctuation and symbols). Every byte of the text belongs to exactly
/// one token, so the tokens concatenated give the text back byte for byte.
///
/// Tokens are byte ranges of the UTF-8 encoding and are compared as bytes, not as Swift strings:
/// `String ==` treats "é" and "e" + U+0301 as equal, and a diff that matched them would rebuild a
/// side with bytes it never had.
enum WordTokenizer {
    enum Class: Equatable { case word, space, punctuation }

    static func tokens(of bytes: [UInt8], text: String) -> [Range<Int>] {
        var tokens: [Range<Int>] = []
        var start = 0, offset = 0
        var current: Class? = nil
        for scalar in text.unicodeScalars {
            let kind = classify(scalar)
            if let current, current != kind {
                tokens.append(start..<offset)
                start = offset
            }
            current = kind
            offset += scalar.utf8.count
        }
        if offset > start { tokens.append(start..<offset) }
        return tokens
    }

    /// How many word tokens `text` holds.
    static func wordCount(of text: String) -> Int {
        var count = 0
        var previous: Class? = nil
        for scalar in text.unicodeScalars {
            let kind = classify(scalar)
            if kind == .word && previous != .word { count += 1 }
            previous = kind
        }
        return count
    }

    static func classify(_ scalar: Unicode.Scalar) -> Class {
        if scalar.isASCII {
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return .word
            case 0x09...0x0D, 0x20: return .space
            default: return .punctuation
            }
        }
        let properties = scalar.properties
        if properties.isWhitespace { return .space }
        if properties.isAlphabetic { return .word }
        switch properties.generalCategory {
        case .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return .word
        default:
            return .punctuation
        }
    }
}
