import Writing

/// How `branch diff` and `snapshot diff` print a word-level comparison: removed words as [-words-],
/// added ones as {+words+}, as `git diff --word-diff` does, so a reader already knows the marks.
enum WordDiffOutput {
    static func text(_ diff: WordDiff) -> String {
        diff.runs.map { run in
            switch run.kind {
            case .equal: run.text
            case .delete: "[-\(run.text)-]"
            case .insert: "{+\(run.text)+}"
            }
        }.joined()
    }

    static func json(_ diff: WordDiff) -> [[String: Any]] {
        diff.runs.map { ["kind": $0.kind.rawValue, "text": $0.text] }
    }
}
