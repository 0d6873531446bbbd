/// A search query as a person types it, parsed strictly (issue 15). The grammar:
///
///     query  = *SP term *(1*SP term) *SP
///     term   = phrase / prefix / word
///     phrase = DQUOTE *SP word *(1*SP word) *SP DQUOTE   ; the words next to each other, in order
///     prefix = word "*"                                  ; any word that starts with it
///     word   = 1*(letter / digit / mark)                 ; as `SearchTokenizer` splits text
///
/// A document matches when every term matches in it. A bare term with punctuation inside it
/// ("don't", "e-mail") is the phrase of its words, as the index splits the text the same way.
/// Words are folded (case and diacritics) as the index folds them.
///
/// The query is bounded before any work (`maximumBytes`, `maximumTerms`, `maximumPhraseWords`): it
/// comes from a person or a script, and a search must stay cheap whatever it is given. Errors say
/// what is wrong and where (a character offset), never quoting the query: it may name a patient.
public struct SearchQuery: Sendable, Equatable {
    public enum Term: Sendable, Equatable {
        case word(String)
        case prefix(String)
        case phrase([String])
    }

    public let terms: [Term]

    /// The longest query, in UTF-8 bytes.
    public static let maximumBytes = 1024
    /// The most terms (a phrase is one term).
    public static let maximumTerms = 16
    /// The most words in one phrase.
    public static let maximumPhraseWords = 16
    /// The shortest prefix, in characters: a one-letter prefix matches most of a vocabulary.
    public static let minimumPrefixCharacters = 2

    public init(parsing text: String) throws(WritingError) {
        try Self.checkShape(text)
        var terms: [Term] = []
        for piece in try Self.pieces(of: text) {
            terms.append(try Self.term(piece))
            guard terms.count <= Self.maximumTerms else {
                throw WritingError(.invalidQuery, "a query has at most \(Self.maximumTerms) terms")
            }
        }
        guard !terms.isEmpty else { throw WritingError(.invalidQuery, "the query has no words to search for") }
        self.terms = terms
    }

    /// Size and characters, before any parsing.
    static func checkShape(_ text: String) throws(WritingError) {
        guard text.utf8.count <= maximumBytes else {
            throw WritingError(.invalidQuery, "the query is \(text.utf8.count) bytes; at most \(maximumBytes) are accepted")
        }
        if let offset = text.unicodeScalars.firstIndex(where: { $0.properties.generalCategory == .control }) {
            let position = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: offset)
            throw WritingError(.invalidQuery, "the query holds a control character at character \(position + 1)")
        }
    }

    /// One piece of the query: a quoted phrase's inside, or a bare term, with where it starts.
    struct Piece { let text: Substring; let quoted: Bool; let offset: Int }

    /// Splits the query at spaces outside quotes; a quote opens and closes a phrase.
    static func pieces(of text: String) throws(WritingError) -> [Piece] {
        var pieces: [Piece] = []
        var scalars = text.unicodeScalars[...]
        var offset = 0
        while let first = scalars.first {
            if first.properties.isWhitespace { scalars = scalars.dropFirst(); offset += 1; continue }
            let quoted = first == "\""
            let body = quoted ? scalars.dropFirst() : scalars
            let end = body.firstIndex(where: { quoted ? $0 == "\"" : ($0.properties.isWhitespace || $0 == "\"") })
            if quoted && end == nil { throw WritingError(.invalidQuery, "the quote at character \(offset + 1) is never closed") }
            let stop = end ?? body.endIndex
            pieces.append(Piece(text: Substring(body[body.startIndex..<stop]), quoted: quoted, offset: offset))
            let consumed = body.distance(from: body.startIndex, to: stop) + (quoted ? 2 : 0)
            offset += consumed
            scalars = quoted ? body[stop...].dropFirst() : body[stop...]
        }
        return pieces
    }

    static func term(_ piece: Piece) throws(WritingError) -> Term {
        let isPrefix = !piece.quoted && piece.text.hasSuffix("*")
        let body = isPrefix ? piece.text.dropLast() : piece.text
        guard !body.contains("*") else {
            throw WritingError(.invalidQuery, "the term at character \(piece.offset + 1) has a * that does not end a single word")
        }
        let words = SearchTokenizer.words(in: String(body)).map(\.folded)
        guard !words.isEmpty else {
            throw WritingError(.invalidQuery, "the \(piece.quoted ? "phrase" : "term") at character \(piece.offset + 1) has no letters or digits")
        }
        guard words.count <= maximumPhraseWords else {
            throw WritingError(.invalidQuery, "the phrase at character \(piece.offset + 1) has \(words.count) words; at most \(maximumPhraseWords)")
        }
        if isPrefix {
            guard words.count == 1 else {
                throw WritingError(.invalidQuery, "the term at character \(piece.offset + 1) has a * that does not end a single word")
            }
            guard words[0].count >= minimumPrefixCharacters else {
                throw WritingError(.invalidQuery, "the prefix at character \(piece.offset + 1) is shorter than \(minimumPrefixCharacters) characters")
            }
            return .prefix(words[0])
        }
        return words.count == 1 && !piece.quoted ? .word(words[0]) : .phrase(words)
    }
}
