/// A short excerpt of a block around a match: a few words either side, in the block's own spelling,
/// whitespace collapsed onto one line, "…" where the text goes on, and capped in length (one "word"
/// can be a megabyte of letters).
enum SearchSnippet {
    static let wordsBefore = 5
    static let wordsAfter = 7
    static let maximumCharacters = 160

    /// The excerpt around the word at `position` (as `SearchIndex.words(of:)` numbers them).
    static func around(_ position: Int, in block: Block) -> String {
        let placed = SearchIndex.words(of: block)
        guard let match = placed.firstIndex(where: { $0.position == position }) else { return "" }
        let field = placed[match].field
        let text = SearchIndex.fields(of: block)[field]
        let inField = placed.indices.filter { placed[$0].field == field }
        guard let fieldFirst = inField.first, let fieldLast = inField.last else { return "" }
        let first = max(fieldFirst, match - wordsBefore), last = min(fieldLast, match + wordsAfter)
        let start = first == fieldFirst ? text.startIndex : placed[first].word.range.lowerBound
        let end = last == fieldLast ? text.endIndex : placed[last].word.range.upperBound
        var line = text[start..<end].split(whereSeparator: \.isWhitespace).joined(separator: " ")
        var goesOn = end != text.endIndex
        if line.count > maximumCharacters { line = String(line.prefix(maximumCharacters)); goesOn = true }
        return (start == text.startIndex ? "" : "…") + line + (goesOn ? "…" : "")
    }
}
