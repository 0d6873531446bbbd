import CryptoVault
import Testing
import Writing

/// Which block keeps its id when a text is written back (`DocumentContent.reusingIDs(of:)`): a split
/// paragraph's id stays with the piece that keeps most of its words, so a blank line typed at its
/// start is a new empty block, not every word re-typed in a new one.
@Suite struct ReusedBlockIDTests {
    static func content(_ texts: [String]) throws -> DocumentContent {
        DocumentContent(blocks: try texts.map { Block(id: try BlockID.random(), kind: .paragraph, text: $0) })
    }

    @Test func aBlankLineTypedAtAParagraphsStartLeavesItsIDOnTheWords() throws {
        let old = try Self.content(["\nReview in a week."])
        let new = try Self.content(["", "Review in a week."]).reusingIDs(of: old)
        // Before: the first piece, the empty one, took the id, and the words became a new block.
        #expect(new.blocks[1].id == old.blocks[0].id)
        #expect(new.blocks[0].id != old.blocks[0].id)
    }

    @Test func aSplitKeepsTheIDOnThePieceWithMostOfTheTextAndOnTheFirstOnATie() throws {
        let old = try Self.content(["Dose is 5 mg. Review in a week, then call."])
        let longerSecond = try Self.content(["Dose.", "Review in a week, then call."]).reusingIDs(of: old)
        #expect(longerSecond.blocks.map(\.id) == [longerSecond.blocks[0].id, old.blocks[0].id])
        #expect(longerSecond.blocks[0].id != old.blocks[0].id)
        let even = try Self.content(["abXcd"])
        let tie = try Self.content(["ab", "cd"]).reusingIDs(of: even)
        #expect(tie.blocks[0].id == even.blocks[0].id && tie.blocks[1].id != even.blocks[0].id)
    }
}
