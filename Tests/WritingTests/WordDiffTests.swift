import Testing
@testable import Writing

@Suite struct WordDiffTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aReplacedWordIsOneDeleteBeforeOneInsertBetweenEqualRuns() throws {
        let diff = try WordDiff.between("The client said no.", "The client said yes, twice.")
        #expect(diff.runs == [
            .init(.equal, "The client said "), .init(.delete, "no"), .init(.insert, "yes, twice"), .init(.equal, "."),
        ])
        #expect(diff.wordsDeleted == 1)
        #expect(diff.wordsInserted == 2)
    }

    @Test func identicalTextsAreOneEqualRunAndEmptyTextsNoRun() throws {
        #expect(try WordDiff.between("same words", "same words").runs == [.init(.equal, "same words")])
        #expect(try WordDiff.between("", "").runs.isEmpty)
        #expect(try WordDiff.between("", "new").runs == [.init(.insert, "new")])
    }

    /// "é" precomposed and decomposed are equal Swift strings but different bytes: the diff must see
    /// a change, or rebuilding the new side from the old side's equal run would change its bytes.
    @Test func canonicallyEquivalentButDifferentBytesAreAChange() throws {
        let diff = try WordDiff.between("caf\u{E9} au lait", "cafe\u{301} au lait")
        #expect(bytes(diff.newText) == bytes("cafe\u{301} au lait"))
        #expect(bytes(diff.oldText) == bytes("caf\u{E9} au lait"))
        #expect(diff.runs.contains { $0.kind == .delete })
    }

    @Test func randomisedTextsAreReconstructedByteForByteOnBothSides() throws {
        var generator = SeededGenerator(seed: 0x5EED_0001)
        for _ in 0..<4_000 {
            let old = RandomText.text(&generator)
            let new = Bool.random(using: &generator) ? RandomText.edited(old, &generator) : RandomText.text(&generator)
            let diff = try WordDiff.between(old, new)
            #expect(bytes(diff.oldText) == bytes(old))
            #expect(bytes(diff.newText) == bytes(new))
            #expect(diff.runs.allSatisfy { !$0.text.isEmpty })
            #expect(zip(diff.runs, diff.runs.dropFirst()).allSatisfy { $0.kind != $1.kind })
        }
    }

    /// The adopt-then-revert property: a diff applied and then its inverse applied gives the
    /// original bytes back.
    @Test func applyingADiffThenItsInverseIsByteIdentical() throws {
        var generator = SeededGenerator(seed: 0x5EED_0002)
        for _ in 0..<3_000 {
            let document = RandomText.text(&generator, maximumPieces: 80)
            let suggestion = RandomText.edited(document, &generator)
            let diff = try WordDiff.between(document, suggestion)
            let adopted = try diff.apply(to: document)
            #expect(bytes(adopted) == bytes(suggestion))
            let reverted = try diff.inverse.apply(to: adopted)
            #expect(bytes(reverted) == bytes(document))
            #expect(diff.inverse.inverse == diff)
        }
    }

    @Test func aDiffRefusesToApplyToAnotherText() throws {
        let diff = try WordDiff.between("first draft", "second draft")
        #expect(throws: WritingError(.diffDoesNotApply, "")) { try diff.apply(to: "first draft, edited") }
        // Equal as Swift strings, different as bytes: still not the text the diff was made from.
        let accented = try WordDiff.between("caf\u{E9}", "tea")
        #expect(throws: WritingError(.diffDoesNotApply, "")) { try accented.apply(to: "cafe\u{301}") }
    }

    @Test func aDocumentOverTheLimitIsRefusedBeforeAnyWork() throws {
        let huge = String(repeating: "a", count: WritingLimits.maximumDocumentBytes + 1)
        #expect(throws: WritingError(.documentTooLarge, "")) { try WordDiff.between(huge, "a") }
        #expect(throws: WritingError(.documentTooLarge, "")) { try WordDiff.between("a", huge) }
        // Exactly at the limit passes the check (the check alone: diffing 100 MB is the benchmark's job).
        let atLimit = String(repeating: "a", count: WritingLimits.maximumDocumentBytes)
        #expect(throws: Never.self) { try WritingLimits.checkDocument(atLimit, "old") }
    }

    /// Past the search bound the middle is one replacement: not minimal, still exact.
    @Test func unrelatedTextsBeyondTheSearchBoundStillReconstructExactly() throws {
        let old = (0..<4_000).map { "w\($0)" }.joined(separator: " ")
        let new = (0..<4_000).map { "v\($0)" }.joined(separator: " ")
        let diff = try WordDiff.between(old, new)
        #expect(bytes(diff.oldText) == bytes(old))
        #expect(bytes(diff.newText) == bytes(new))
    }

    /// History's "words added / removed": markup and punctuation are not words; a changed word is
    /// one removed and one added.
    @Test func wordCountsSkipMarkupAndPunctuation() throws {
        let diff = try WordDiff.between("# Arrival\n\n- The boat came in.\n", "# Arrival\n\n- The boats came in late, grey.\n")
        #expect(diff.wordCount(.insert) == 3)
        #expect(diff.wordCount(.delete) == 1)
        let fromNothing = try WordDiff.between("", "# Arrival\n\n> The boat came in.\n")
        #expect(fromNothing.wordCount(.insert) == 5)
        #expect(fromNothing.wordCount(.delete) == 0)
    }
}
