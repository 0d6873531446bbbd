import Foundation
import Writing

/// The writing model's pure version algorithms on a 10,000-word document (issue 15): a word diff
/// between two versions, and a three-way merge of two edited copies, over lines and over blocks.
/// Figures only (no target in the issue): medians of 11 runs.
enum VersionsBenchmarks {
    static func run() throws {
        var generator = SplitMix(state: 15)  // seeded: the same document on every run, so runs compare
        let paragraphs = document(words: 10_000, &generator)
        let text = paragraphs.joined(separator: "\n")
        let light = edit(paragraphs, fraction: 0.02, &generator)
        let heavy = edit(paragraphs, fraction: 0.10, &generator)
        Benchmark.section("Versions on a 10,000-word document (\(text.utf8.count) bytes, \(paragraphs.count) paragraphs; median of 11)")
        try diff("word diff, 2% of words changed", text, light.joined(separator: "\n"))
        try diff("word diff, 10% of words changed", text, heavy.joined(separator: "\n"))
        try diff("word diff, identical versions", text, text)

        // Two writers edit different paragraphs (ours the first half, theirs the second) and one
        // paragraph both: a merge with one conflict.
        let half = paragraphs.count / 2
        var ours = paragraphs, theirs = paragraphs
        ours.replaceSubrange(0..<half, with: edit(Array(paragraphs[0..<half]), fraction: 0.05, &generator))
        theirs.replaceSubrange(half..., with: edit(Array(paragraphs[half...]), fraction: 0.05, &generator))
        ours[half] += " Ours."
        let lineMerge = try Benchmark.median(11) {
            _ = try ThreeWayMerge.lines(base: text, ours: ours.joined(separator: "\n"), theirs: theirs.joined(separator: "\n"))
        }
        let merged = try ThreeWayMerge.lines(base: text, ours: ours.joined(separator: "\n"), theirs: theirs.joined(separator: "\n"))
        Benchmark.report("three-way merge by line (\(merged.conflictCount) conflict)", lineMerge, "ms")
        let blockMerge = try Benchmark.median(11) { _ = try ThreeWayMerge.blocks(base: paragraphs, ours: ours, theirs: theirs) }
        Benchmark.report("three-way merge by block (paragraphs)", blockMerge, "ms")
    }

    private static func diff(_ name: String, _ old: String, _ new: String) throws {
        let time = try Benchmark.median(11) { _ = try WordDiff.between(old, new) }
        let result = try WordDiff.between(old, new)
        Benchmark.report(name, time, "ms")
        Benchmark.note("\(result.wordsDeleted) words out, \(result.wordsInserted) in, \(result.runs.count) runs")
    }

    /// Paragraphs of 60 to 140 words from a 2,000-word vocabulary with commas and full stops.
    private static func document(words: Int, _ generator: inout SplitMix) -> [String] {
        let vocabulary: [String] = (0..<2_000).map { index in
            var word = ""
            for offset in 0..<(3 + index % 7) {
                let letter = UInt8(97 + (index * 7 + offset * 13) % 26)
                word.append(Character(Unicode.Scalar(letter)))
            }
            return word
        }
        var paragraphs: [String] = []
        var written = 0
        while written < words {
            let count = min(words - written, 60 + Int(generator.next() % 81))
            var paragraph = ""
            for index in 0..<count {
                paragraph += vocabulary[Int(generator.next() % 2_000)]
                paragraph += index == count - 1 ? "." : (generator.next() % 12 == 0 ? ", " : " ")
            }
            paragraphs.append(paragraph)
            written += count
        }
        return paragraphs
    }

    /// Replaces about `fraction` of the words of each paragraph with "edited".
    private static func edit(_ paragraphs: [String], fraction: Double, _ generator: inout SplitMix) -> [String] {
        paragraphs.map { paragraph in
            paragraph.split(separator: " ", omittingEmptySubsequences: false).map { word in
                Double(generator.next() % 10_000) < fraction * 10_000 ? "edited" : String(word)
            }.joined(separator: " ")
        }
    }
}
