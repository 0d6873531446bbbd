extension WordDiff {
    /// How many words the runs of `kind` hold, as the tokenizer sees words (runs of letters, digits
    /// and marks): the markup a document prints with (a heading's `#`, a list item's `-`, a quote's
    /// `>`) and punctuation are not words, so "# Arrival" is one word, as a writer counts it.
    public func wordCount(_ kind: Kind) -> Int {
        runs.reduce(0) { $0 + ($1.kind == kind ? WordTokenizer.wordCount(of: $1.text) : 0) }
    }
}
