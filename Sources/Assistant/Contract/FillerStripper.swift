import Foundation

/// Takes chat filler off a model's answer before it is stored (the seed's output contract): an
/// opening line that only presents the answer ("Sure! Here is the revised note:"), a closing one
/// that only offers more ("I hope this helps! Let me know if..."), and Markdown fences around prose.
/// It removes whole lines at the edges only, never words inside the text, and only lines that say
/// nothing but filler, so a story that starts "Sure enough, the boats came in." keeps its first line.
///
/// An opening line is filler when, lower-cased, after any interjections ("sure", "certainly", "of
/// course", "okay", ... each followed by `!`, `,`, `.` or a dash), nothing is left, or what is left
/// starts with a presenting phrase ("here is", "below is", "i've revised", ...) and either ends in a
/// colon or names the task ("the revised note.", "a summary!"). A closing paragraph is filler when it
/// starts with an offer or a wish ("i hope this helps", "let me know", "feel free", "would you like").
/// Both are at most 300 characters; at most three are taken from each end.
public enum FillerStripper {
    public static func strip(_ answer: String) -> String {
        var lines = answer.components(separatedBy: "\n").map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
        for _ in 0..<3 {
            trimBlank(&lines)
            unwrapFence(&lines)
            guard let first = lines.first, isOpener(first) else { break }
            lines.removeFirst()
        }
        for _ in 0..<3 {
            trimBlank(&lines)
            unwrapFence(&lines)
            // The last line alone (a closer right under a fence), else the last paragraph.
            let paragraph = (lines.lastIndex(where: isBlank) ?? -1) + 1
            if let last = lines.indices.last, isCloser(lines[last]) {
                lines.removeLast()
            } else if paragraph < lines.count, isCloser(lines[paragraph...].joined(separator: " ")) {
                lines.removeSubrange(paragraph...)
            } else {
                break
            }
        }
        trimBlank(&lines)
        unwrapFence(&lines)
        trimBlank(&lines)
        return lines.joined(separator: "\n")
    }

    static let interjections = ["sure thing", "sure", "certainly", "of course", "absolutely", "okay", "ok", "alright", "all right", "great",
                                "gladly", "no problem", "yes", "got it", "understood", "great question", "happy to help", "with pleasure",
                                "definitely", "perfect", "excellent", "hello", "hi there", "hi"]
    /// Phrases that present what follows; filler when the line ends in a colon or names the task.
    static let presenting = ["here is", "here's", "here are", "below is", "below are", "below you'll find", "below you will find",
                             "please find", "here you go", "here it is", "as requested", "as you asked", "i've", "i have", "i'd be happy to",
                             "i would be happy to", "i'd be glad to", "i'll", "i will", "let me", "this is", "the following is",
                             "the following are", "happy to help"]
    static let taskWords = ["revis", "summar", "draft", "continu", "version", "rewrit", "edit", "list", "text", "paragraph", "note", "memo",
                            "question", "source", "suggest", "passage", "scene", "section", "answer", "response", "result", "polish",
                            "improv", "updat", "tighten", "shorten", "expand"]
    /// Closing phrases that are filler wherever they stand at the start of the last paragraph.
    static let closers = ["i hope this helps", "hope this helps", "i hope that helps", "hope that helps", "i hope this is helpful",
                          "hope this is helpful", "let me know if", "let me know whether", "let me know what", "please let me know",
                          "feel free to", "is there anything else", "don't hesitate", "i can also", "i'm happy to", "i am happy to",
                          "shall i", "want me to", "i'd be happy to", "i would be happy to", "i'd be glad to"]
    /// Offers that are filler only when the model offers itself ("if you'd like, I can...").
    static let offers = ["if you'd like", "if you would like", "if you want", "if you need", "would you like", "do you want"]
    /// Wishes that are filler only as an exclamation or a clause of their own ("Good luck!", not "Good luck was all she had.").
    static let wishes = ["happy writing", "good luck", "enjoy", "hope you", "anything else", "happy to help", "best of luck", "cheers"]

    static func isOpener(_ line: String) -> Bool {
        var rest = normalized(line)
        guard !rest.isEmpty, rest.count <= 300 else { return false }
        var sawInterjection = false
        while let next = dropInterjection(rest) { rest = next; sawInterjection = true }
        if rest.isEmpty { return sawInterjection }
        guard presenting.contains(where: { phrase in rest == phrase || [" ", ":", "!", ","].contains { rest.hasPrefix(phrase + $0) } }) else { return false }
        if rest.hasSuffix(":") { return true }
        guard rest.hasSuffix(".") || rest.hasSuffix("!") else { return false }
        // "Here is where the river bends." is the story; "Here is the revised note." is filler.
        return taskWords.contains { rest.contains($0) } && rest.filter({ $0 == "." || $0 == "!" }).count <= 2
    }

    static func isCloser(_ paragraph: String) -> Bool {
        var rest = normalized(paragraph)
        guard !rest.isEmpty, rest.count <= 300 else { return false }
        while let next = dropInterjection(rest) { rest = next }
        if closers.contains(where: { rest.hasPrefix($0) }) { return true }
        if offers.contains(where: { rest.hasPrefix($0) }) {
            let words = Set(rest.split { !$0.isLetter && $0 != "'" })
            return !words.isDisjoint(with: ["i", "me", "i'd", "i'll", "i'm", "i can"]) || rest.hasSuffix("?")
        }
        return wishes.contains { wish in
            guard rest.hasPrefix(wish) else { return false }
            let after = rest.dropFirst(wish.count)
            return after.isEmpty || "!.,:;".contains(after.first!) || after.hasPrefix(" with ")
        }
    }

    /// `text` without a leading interjection and its punctuation, or nil if it starts with none.
    static func dropInterjection(_ text: String) -> String? {
        for word in interjections where text.hasPrefix(word) {
            let after = text.dropFirst(word.count)
            guard let mark = after.first, "!,.—-–".contains(mark) else { continue }
            return String(after.drop { "!,.—-– ".contains($0) })
        }
        return nil
    }

    static func normalized(_ text: String) -> String {
        let folded = text.lowercased().replacingOccurrences(of: "\u{2019}", with: "'").replacingOccurrences(of: "*", with: "")
        return folded.trimmingCharacters(in: .whitespaces)
    }

    static func isBlank(_ line: String) -> Bool { line.trimmingCharacters(in: .whitespaces).isEmpty || line.trimmingCharacters(in: .whitespaces) == "---" }

    static func trimBlank(_ lines: inout [String]) {
        while let first = lines.first, isBlank(first) { lines.removeFirst() }
        while let last = lines.last, isBlank(last) { lines.removeLast() }
    }

    /// Removes a fence around the whole answer when it holds prose (no language, or text/markdown).
    static func unwrapFence(_ lines: inout [String]) {
        guard lines.count >= 2, let first = lines.first?.trimmingCharacters(in: .whitespaces), first.hasPrefix("```"),
              lines.last?.trimmingCharacters(in: .whitespaces) == "```" else { return }
        let language = first.dropFirst(3).lowercased()
        guard ["", "text", "markdown", "md", "plaintext", "plain", "prose", "txt"].contains(language) else { return }
        lines.removeFirst()
        lines.removeLast()
    }
}
