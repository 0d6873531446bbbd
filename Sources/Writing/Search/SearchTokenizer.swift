import Foundation

/// Splits text into the words search compares: runs of word characters as `WordTokenizer` classes
/// them (letters, digits, marks), each folded so that case and diacritics do not matter ("Éclair",
/// "eclair" and "ECLAIR" are one word). The index and the query parser both split here, so a query
/// word matches exactly the words the text was split into.
enum SearchTokenizer {
    struct Word: Equatable {
        /// The word case-folded and without diacritics: what the index keys on.
        let folded: String
        /// Where it is in the text it came from (for a snippet).
        let range: Range<String.Index>
    }

    static func words(in text: String) -> [Word] {
        var words: [Word] = []
        let scalars = text.unicodeScalars
        var start: String.Index? = nil
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let isWord = WordTokenizer.classify(scalars[index]) == .word
            if isWord, start == nil { start = index }
            if !isWord, let begun = start {
                words.append(Word(folded: fold(text[begun..<index]), range: begun..<index))
                start = nil
            }
            index = scalars.index(after: index)
        }
        if let begun = start { words.append(Word(folded: fold(text[begun..<index]), range: begun..<index)) }
        return words
    }

    /// Lower case without diacritics. ASCII, most of what is written, is folded byte by byte; the
    /// rest through Foundation's folding (which also decomposes, so "é" as one scalar or as "e" and
    /// a combining accent folds alike).
    static func fold(_ word: Substring) -> String {
        if word.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: word.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        return word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .precomposedStringWithCanonicalMapping
    }
}
