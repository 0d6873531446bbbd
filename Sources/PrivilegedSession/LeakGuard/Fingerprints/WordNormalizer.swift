import Foundation

/// The words of a text as fingerprints see them (SECURITY.md §11.2): split on anything that is not a
/// letter, mark or number, apostrophes and invisible characters dropped, each word NFKC-normalised and
/// lowercased, so that changed case, punctuation, line breaks, typographic quotes or full-width
/// letters do not change the words.
///
/// Precisely, over the Unicode scalars of the text (an ill-formed UTF-8 byte counts as a separator):
/// - apostrophes (U+0027, U+2018, U+2019, U+02BC, U+FF07) and Default_Ignorable_Code_Point scalars
///   (zero-width space and joiners, soft hyphen, ...) are deleted: they neither join nor split;
/// - scalars of general category L*, M* or N* are word scalars; every other scalar separates words;
/// - a run of more than `maximumWordScalars` word scalars is cut into words of that many;
/// - each word w becomes NFKC(lowercase(NFKC(w))), lowercase being each scalar's full Unicode
///   lowercase mapping (UnicodeData plus unconditional SpecialCasing, no locale, no context).
///
/// ASCII words (the vast majority) take a fast path with the same result: NFKC leaves ASCII letters
/// and digits alone, and their lowercase mapping is A-Z to a-z.
struct WordNormalizer {
    static let maximumWordScalars = 64
    /// Normalised forms of non-ASCII words kept between calls (bounded; cleared when full).
    static let cacheLimit = 4096

    private var cache: [[UInt8]: [UInt8]] = [:]

    /// Calls `body` with each normalised word (`NormalizedWord`: in place in `bytes` for a whole
    /// ASCII word, else in a buffer) and its byte range in `bytes`. The word is valid only during
    /// the call.
    @inline(__always)
    mutating func forEachWord(in bytes: UnsafeBufferPointer<UInt8>, _ body: (NormalizedWord, Range<Int>) -> Void) {
        var word = WordBuffer()
        defer { word.deallocate() }
        var position = 0
        while position < bytes.count {
            let byte = bytes[position]
            if byte < 0x80 {
                if ASCIIBytes.isAlphanumeric(byte) {
                    // A whole run of ASCII letters and digits at once: the common case, kept cheap.
                    let limit = min(bytes.count, position + Self.maximumWordScalars - word.scalars)
                    let end = position + ASCIIBytes.alphanumericRunLength(bytes, from: position, limit: limit)
                    if word.scalars == 0, Self.endsWord(bytes, at: end, length: end - position) {
                        // The whole word lies in the text: handed over where it is, lowercased by
                        // the reader (`NormalizedWord.fold`), without a copy.
                        body(NormalizedWord(asciiIn: bytes, position..<end), position..<end)
                    } else {
                        word.append(bytes, position..<end, ascii: true)
                    }
                    position = end
                } else {
                    if byte != UInt8(ascii: "'") { emit(&word, body) }
                    position += 1
                }
            } else {
                position = readScalar(bytes, at: position, into: &word, body)
            }
            if word.scalars == Self.maximumWordScalars { emit(&word, body) }
        }
        emit(&word, body)
    }

    /// Whether a run of ASCII letters and digits of `length` ending before `end` is a whole word: it
    /// reached the word length limit, or the text ends, or an ASCII byte other than an apostrophe
    /// follows (a non-ASCII scalar might continue the word, an apostrophe is deleted from it).
    @inline(__always)
    private static func endsWord(_ bytes: UnsafeBufferPointer<UInt8>, at end: Int, length: Int) -> Bool {
        guard end < bytes.count, length < maximumWordScalars else { return true }
        let next = bytes[end]
        return next < 0x80 && next != UInt8(ascii: "'")
    }

    /// One non-ASCII scalar (or one ill-formed byte) at `position`; returns the position after it.
    private mutating func readScalar(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, into word: inout WordBuffer,
                                     _ body: (NormalizedWord, Range<Int>) -> Void) -> Int {
        guard let (scalar, length) = UTF8Scalar.decode(bytes, at: position) else {
            emit(&word, body)
            return position + 1
        }
        switch Self.role(of: scalar) {
        case .deleted: break
        case .word: word.append(bytes, position..<position + length, ascii: false)
        case .separator: emit(&word, body)
        }
        return position + length
    }

    enum Role { case word, deleted, separator }

    static func role(of scalar: Unicode.Scalar) -> Role {
        switch scalar.value {
        case 0x27, 0x2018, 0x2019, 0x02BC, 0xFF07: return .deleted
        default: break
        }
        let properties = scalar.properties
        if properties.isDefaultIgnorableCodePoint { return .deleted }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
            return .word
        default:
            return .separator
        }
    }

    @inline(__always)
    private mutating func emit(_ word: inout WordBuffer, _ body: (NormalizedWord, Range<Int>) -> Void) {
        guard word.scalars > 0 else { return }
        if word.isASCII {
            body(NormalizedWord(asciiIn: word.contents, 0..<word.contents.count, readable: WordBuffer.capacity), word.range)
        } else {
            normalized(Array(word.contents)).withUnsafeBufferPointer { body(NormalizedWord(normalized: $0), word.range) }
        }
        word.reset()
    }

    private mutating func normalized(_ raw: [UInt8]) -> [UInt8] {
        if let known = cache[raw] { return known }
        let result = Self.normalize(raw)
        if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
        cache[raw] = result
        return result
    }

    /// NFKC(lowercase(NFKC(word))) of a word's UTF-8 (the slow path, for words with non-ASCII scalars).
    static func normalize(_ raw: [UInt8]) -> [UInt8] {
        let compatible = String(decoding: raw, as: UTF8.self).precomposedStringWithCompatibilityMapping
        var lowered = String.UnicodeScalarView()
        for scalar in compatible.unicodeScalars { lowered.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars) }
        return Array(String(lowered).precomposedStringWithCompatibilityMapping.utf8)
    }
}

/// A normalised word (§11.2) as handed to the shingler: `count` bytes at `start`, valid only during
/// the call that receives it. An ASCII word of letters and digits may still hold capitals: its
/// normalised form is each byte with bit 0x20 set (`fold`), which lowercases A-Z and leaves a-z and
/// 0-9 alone, so readers OR it in rather than the word being copied to lowercase it. `readable`
/// bytes from `start` may be read (at least `count`), so a reader may load 8 bytes at a time.
struct NormalizedWord {
    let start: UnsafePointer<UInt8>
    let count: Int
    let readable: Int
    /// 0x20 in each of the first 7 bytes for an ASCII word, 0 for a word already normalised.
    let fold: UInt64

    static let asciiFold: UInt64 = 0x0020_2020_2020_2020

    /// The ASCII letters and digits in `range` of `bytes`, which may be read up to their end.
    @inline(__always)
    init(asciiIn bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, readable: Int? = nil) {
        start = bytes.baseAddress! + range.lowerBound
        count = range.count
        self.readable = readable ?? bytes.count - range.lowerBound
        fold = Self.asciiFold
    }

    init(normalized bytes: UnsafeBufferPointer<UInt8>) {
        start = bytes.baseAddress!
        count = bytes.count
        readable = bytes.count
        fold = 0
    }

    /// The normalised UTF-8 (for tests and diagnostics; the shingler reads the word in place).
    var utf8: [UInt8] {
        (0..<count).map { start[$0] | (fold == 0 ? 0 : 0x20) }
    }
}

/// The word being read: its raw UTF-8, its byte range in the text and how many word scalars it has.
/// At most `maximumWordScalars` scalars of at most 4 bytes each, so a fixed buffer holds any word.
private struct WordBuffer {
    /// Room for the longest word, and 8 bytes more so that readers may load 8 bytes at any offset.
    static let capacity = WordNormalizer.maximumWordScalars * 4 + 8

    private let storage: UnsafeMutablePointer<UInt8> = {
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
        return storage
    }()
    private var count = 0
    var range = 0..<0
    var scalars = 0
    var isASCII = true

    var contents: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

    /// Appends one non-ASCII scalar, or a run of ASCII scalars (one byte each).
    mutating func append(_ source: UnsafeBufferPointer<UInt8>, _ scalarRange: Range<Int>, ascii: Bool) {
        if scalars == 0 { range = scalarRange.lowerBound..<scalarRange.lowerBound }
        // A byte loop: words are a few bytes long, shorter than a memmove call is worth.
        for index in scalarRange {
            storage[count] = source[index]
            count += 1
        }
        range = range.lowerBound..<scalarRange.upperBound
        scalars += ascii ? scalarRange.count : 1
        isASCII = isASCII && ascii
    }

    mutating func reset() {
        count = 0
        scalars = 0
        isASCII = true
    }

    func deallocate() {
        storage.deallocate()
    }
}
