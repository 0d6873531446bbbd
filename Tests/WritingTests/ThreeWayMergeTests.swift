import Testing
@testable import Writing

@Suite struct ThreeWayMergeTests {
    /// Every region's resolution is honest, and the regions rebuild all three inputs exactly: the
    /// merge dropped nothing of any side.
    static func expectKeepsEverything<Element>(_ result: MergeResult<Element>, base: [Element], ours: [Element],
                                               theirs: [Element], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.base == base, sourceLocation: sourceLocation)
        #expect(result.ours == ours, sourceLocation: sourceLocation)
        #expect(result.theirs == theirs, sourceLocation: sourceLocation)
        for region in result.regions {
            switch region.resolution {
            case .agreed: #expect(region.ours == region.theirs, sourceLocation: sourceLocation)
            case .ours: #expect(region.theirs == region.base, sourceLocation: sourceLocation)
            case .theirs: #expect(region.ours == region.base, sourceLocation: sourceLocation)
            case .conflict: #expect(region.ours != region.theirs || region.ours != region.base, sourceLocation: sourceLocation)
            }
        }
    }

    @Test func changesThatDoNotOverlapMergeCleanly() throws {
        let base = "Subjective\nObjective\nAssessment\nPlan\n"
        let ours = "Subjective: sleeping better\nObjective\nAssessment\nPlan\n"
        let theirs = "Subjective\nObjective\nAssessment\nPlan: review in two weeks\n"
        let result = try ThreeWayMerge.lines(base: base, ours: ours, theirs: theirs)
        #expect(result.isClean)
        #expect(result.text() == "Subjective: sleeping better\nObjective\nAssessment\nPlan: review in two weeks\n")
        Self.expectKeepsEverything(result, base: Line.split(base), ours: Line.split(ours), theirs: Line.split(theirs))
    }

    @Test func overlappingChangesAreAConflictThatKeepsBaseAndBothSides() throws {
        let base = "one\ntwo\nthree\n"
        let ours = "one\n2 (ours)\nthree\n"
        let theirs = "one\n2 (theirs)\nthree\n"
        let result = try ThreeWayMerge.lines(base: base, ours: ours, theirs: theirs)
        #expect(result.conflictCount == 1)
        #expect(result.merged == nil)
        #expect(result.text() == "one\n<<<<<<< ours\n2 (ours)\n||||||| base\ntwo\n=======\n2 (theirs)\n>>>>>>> theirs\nthree\n")
        #expect(result.text(includeBase: false) == "one\n<<<<<<< ours\n2 (ours)\n=======\n2 (theirs)\n>>>>>>> theirs\nthree\n")
    }

    /// As in git: changes to neighbouring lines touch, and touching changes are a conflict.
    @Test func changesToAdjacentLinesConflictAsInGit() throws {
        let result = try ThreeWayMerge.lines(base: "a\nb\n", ours: "A\nb\n", theirs: "a\nB\n")
        #expect(result.conflictCount == 1)
    }

    @Test func theSameChangeOnBothSidesIsTakenOnce() throws {
        let result = try ThreeWayMerge.lines(base: "a\nb\nc\n", ours: "a\nB\nc\n", theirs: "a\nB\nc\n")
        #expect(result.isClean)
        #expect(result.text() == "a\nB\nc\n")
    }

    @Test func aLastLineWithoutNewlineStillGetsItsMarkerOnANewLine() throws {
        let result = try ThreeWayMerge.lines(base: "a\nb", ours: "a\nours", theirs: "a\ntheirs")
        #expect(result.text() == "a\n<<<<<<< ours\nours\n||||||| base\nb\n=======\ntheirs\n>>>>>>> theirs\n")
    }

    /// Blocks merge by their own equality, the same way lines do.
    @Test func blockListsMergeWithTheSameRule() throws {
        enum Block: Hashable, Sendable { case heading(String), paragraph(String) }
        let base: [Block] = [.heading("Facts"), .paragraph("p1"), .heading("Discussion"), .paragraph("p2")]
        let ours: [Block] = [.heading("Facts"), .paragraph("p1, revised"), .heading("Discussion"), .paragraph("p2")]
        let theirs: [Block] = [.heading("Facts"), .paragraph("p1"), .heading("Discussion"), .paragraph("p2"), .paragraph("p3")]
        let result = try ThreeWayMerge.blocks(base: base, ours: ours, theirs: theirs)
        #expect(result.merged == [.heading("Facts"), .paragraph("p1, revised"), .heading("Discussion"), .paragraph("p2"), .paragraph("p3")])
        let clash = try ThreeWayMerge.blocks(base: base, ours: ours, theirs: [.heading("Facts"), .paragraph("p1!"),
                                                                               .heading("Discussion"), .paragraph("p2")])
        #expect(clash.conflictCount == 1)
        Self.expectKeepsEverything(clash, base: base, ours: ours, theirs: clash.theirs)
    }

    @Test func oversizedInputsAreRefusedWithTheirReason() throws {
        let huge = String(repeating: "x\n", count: WritingLimits.maximumDocumentBytes / 2 + 1)
        #expect(throws: WritingError(.documentTooLarge, "")) { try ThreeWayMerge.lines(base: huge, ours: "", theirs: "") }
        #expect(throws: WritingError(.documentTooLarge, "")) { try ThreeWayMerge.lines(base: "", ours: "", theirs: huge) }
        let many = [Int](repeating: 0, count: WritingLimits.maximumBlocks + 1)
        #expect(throws: WritingError(.tooManyBlocks, "")) { try ThreeWayMerge.blocks(base: [], ours: many, theirs: []) }
    }

    @Test func randomisedMergesKeepEverythingOfAllThreeSides() throws {
        var generator = SeededGenerator(seed: 0x5EED_0003)
        for _ in 0..<5_000 {
            let triple = RandomTriple.make(&generator)
            let result = try ThreeWayMerge.lines(base: triple.base, ours: triple.ours, theirs: triple.theirs)
            Self.expectKeepsEverything(result, base: Line.split(triple.base), ours: Line.split(triple.ours),
                                       theirs: Line.split(triple.theirs))
            if triple.ours == triple.base { #expect(result.merged.map { $0.map(\.text).joined() } == triple.theirs) }
            if triple.theirs == triple.base { #expect(result.merged.map { $0.map(\.text).joined() } == triple.ours) }
        }
    }
}

/// Small line-based triples: a base of a few lines from a small alphabet (so that lines repeat and
/// alignments are ambiguous), and two sides made from it by a few line edits.
enum RandomTriple {
    static let alphabet = ["a\n", "b\n", "c\n", "d\n", "e\n", "f\n"]

    static func make(_ generator: inout SeededGenerator) -> (base: String, ours: String, theirs: String) {
        let base = (0..<Int.random(in: 0...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
        return (base.joined(), edit(base, &generator).joined(), edit(base, &generator).joined())
    }

    static func edit(_ lines: [String], _ generator: inout SeededGenerator) -> [String] {
        var lines = lines
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            let position = Int.random(in: 0...lines.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: lines.insert(alphabet.randomElement(using: &generator)!, at: position)
            case 1 where position < lines.count: lines.remove(at: position)
            default: if position < lines.count { lines[position] = alphabet.randomElement(using: &generator)! }
            }
        }
        return lines
    }
}
