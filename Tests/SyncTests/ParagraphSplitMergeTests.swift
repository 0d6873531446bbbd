import CryptoVault
import Testing
@testable import Sync
import Writing

/// A blank line typed at a paragraph's start on one device while another types in that paragraph
/// (clownschool 4440-4442, notes/trace.md): the split leaves the paragraph's block on its words, so
/// the typing merges by SECURITY.md §19.3 (the splitting side's block is back at the merge's base)
/// and the new empty paragraph is a block of its own, with no conflict.
@Suite struct ParagraphSplitMergeTests {
    @Test func aBlankLineTypedAtAParagraphsStartMergesWithTypingInItElsewhere() throws {
        var fleet = try SyncFleet(devices: 2)
        var generator = SeededGenerator(seed: 3)
        let document = try fleet.replicas[0].createDocument(titled: "Notes").document
        func write(_ text: String, on device: Int) throws {
            let content = try TraceReplay.content(text, reusing: fleet.replicas[device].content(of: document))
            _ = try fleet.replicas[device].edit(document, to: content)
        }
        try write("Review in a week.", on: 0)
        fleet.healAll(&generator)
        // The laptop types a newline, then another, at the paragraph's start; the desk types on.
        try write("\nReview in a week.", on: 1)
        try write("\n\nReview in a week.", on: 1)
        try write("Review in a week, please.", on: 0)
        fleet.healAll(&generator)
        // Before: the empty piece kept the paragraph's block, its words deleted there and re-typed in
        // a new block, so the desk's typing met a conflict and the document showed the words twice.
        for device in fleet.replicas.indices {
            #expect(fleet.replicas[device].content(of: document).blocks.map(\.text) == ["", "Review in a week, please."])
            #expect(fleet.replicas[device].conflicts().isEmpty)
        }
    }
}
