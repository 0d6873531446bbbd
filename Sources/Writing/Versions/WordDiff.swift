/// A word-level comparison of two texts, for the console and the CLI ("compare two versions", "show
/// a branch against its base"). Tokens are words, whitespace runs and punctuation runs
/// (`WordTokenizer`); the runs are the shortest edit script between the two token lists
/// (`SequenceDiff`, Myers), with a change shown as its deletion before its insertion.
///
/// The runs reconstruct both sides exactly, byte for byte: the equal and deleted runs give the old
/// text, the equal and inserted runs the new. That makes a diff something that can be applied and
/// undone (`apply(to:)`, `inverse`), which adopt and revert rely on.
public struct WordDiff: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case equal, insert, delete }

    /// A stretch of text that both sides share, or that only one side has.
    public struct Run: Sendable, Equatable {
        public let kind: Kind
        public let text: String

        public init(_ kind: Kind, _ text: String) {
            self.kind = kind
            self.text = text
        }

        /// Byte equality: `String ==` would equate canonically equivalent texts with different bytes.
        public static func == (lhs: Run, rhs: Run) -> Bool {
            lhs.kind == rhs.kind && lhs.text.utf8.elementsEqual(rhs.text.utf8)
        }
    }

    /// Never two neighbouring runs of the same kind, never an empty run, and in a change the delete
    /// comes before the insert.
    public let runs: [Run]

    public init(runs: [Run]) { self.runs = runs }

    /// The word diff from `old` to `new`. Each text is at most `WritingLimits.maximumDocumentBytes`.
    public static func between(_ old: String, _ new: String) throws(WritingError) -> WordDiff {
        try WritingLimits.checkDocument(old, "old")
        try WritingLimits.checkDocument(new, "new")
        let oldBytes = Array(old.utf8), newBytes = Array(new.utf8)
        let oldTokens = WordTokenizer.tokens(of: oldBytes, text: old)
        let newTokens = WordTokenizer.tokens(of: newBytes, text: new)
        var table = SymbolTable<ArraySlice<UInt8>>()
        let oldSymbols = oldTokens.map { table.symbol(oldBytes[$0]) }
        let newSymbols = newTokens.map { table.symbol(newBytes[$0]) }
        let hunks = SequenceDiff.hunks(oldSymbols, newSymbols)
        var builder = RunBuilder()
        var oldIndex = 0
        for hunk in hunks {
            builder.add(.equal, oldBytes, oldTokens[oldIndex..<hunk.oldStart])
            builder.add(.delete, oldBytes, oldTokens[hunk.oldStart..<(hunk.oldStart + hunk.oldCount)])
            builder.add(.insert, newBytes, newTokens[hunk.newStart..<(hunk.newStart + hunk.newCount)])
            oldIndex = hunk.oldStart + hunk.oldCount
        }
        builder.add(.equal, oldBytes, oldTokens[oldIndex...])
        return WordDiff(runs: builder.runs)
    }

    /// The text the diff was computed from.
    public var oldText: String { joined { $0 != .insert } }

    /// The text the diff leads to.
    public var newText: String { joined { $0 != .delete } }

    /// The diff from the new text back to the old: inserts become deletes and deletes inserts (and
    /// each change keeps its delete first).
    public var inverse: WordDiff {
        var swapped: [Run] = []
        var index = 0
        while index < runs.count {
            if runs[index].kind == .equal { swapped.append(runs[index]); index += 1; continue }
            var deleted: Run? = nil, inserted: Run? = nil
            while index < runs.count, runs[index].kind != .equal {
                if runs[index].kind == .delete { inserted = Run(.insert, runs[index].text) }
                else { deleted = Run(.delete, runs[index].text) }
                index += 1
            }
            if let deleted { swapped.append(deleted) }
            if let inserted { swapped.append(inserted) }
        }
        return WordDiff(runs: swapped)
    }

    /// The new text, from `text` which must be byte for byte the old text this diff was computed
    /// from; any other text is refused (`diffDoesNotApply`) rather than patched at a guess.
    public func apply(to text: String) throws(WritingError) -> String {
        try WritingLimits.checkDocument(text, "patched")
        guard text.utf8.elementsEqual(oldText.utf8) else {
            throw WritingError(.diffDoesNotApply, "the text is not the version this comparison was made from")
        }
        return newText
    }

    /// How many words the new side adds and the old side loses (the word delta of an edit).
    public var wordsInserted: Int { words(in: .insert) }
    public var wordsDeleted: Int { words(in: .delete) }

    private func words(in kind: Kind) -> Int {
        runs.filter { $0.kind == kind }.reduce(0) { $0 + WordTokenizer.wordCount(of: $1.text) }
    }

    private func joined(_ include: (Kind) -> Bool) -> String {
        var bytes: [UInt8] = []
        for run in runs where include(run.kind) { bytes.append(contentsOf: run.text.utf8) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Gathers tokens into runs, merging a run into the one before it when their kinds match.
private struct RunBuilder {
    var runs: [WordDiff.Run] = []

    mutating func add(_ kind: WordDiff.Kind, _ bytes: [UInt8], _ tokens: ArraySlice<Range<Int>>) {
        guard let first = tokens.first, let last = tokens.last else { return }
        let text = String(decoding: bytes[first.lowerBound..<last.upperBound], as: UTF8.self)
        if let previous = runs.last, previous.kind == kind {
            runs[runs.count - 1] = WordDiff.Run(kind, previous.text + text)
        } else {
            runs.append(WordDiff.Run(kind, text))
        }
    }
}
