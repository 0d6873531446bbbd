import Testing
@testable import Writing

/// A receive makes its conflict branches in the order of the conflicts' names, so the bases of
/// several documents come in turn: each is read once while the held bases stay within their bound.
@Suite struct BranchBaseTests {
    @Test("bases asked for in turn are each read once, and each gives its own bytes and blocks")
    func basesAskedForInTurnAreEachReadOnce() throws {
        let held = BranchBase()
        let bases = try (0..<4).map { index in (id: try SnapshotID.random(), bytes: SnapshotContent.encode(try WritingFixture.paragraphs(["Document \(index)."]))) }
        var reads = 0
        for _ in 0..<3 {
            for base in bases {
                let found = try held.content(of: base.id) { reads += 1; return base.bytes }
                #expect(found.bytes == base.bytes)
                #expect(SnapshotContent.encode(found.content) == base.bytes)
            }
        }
        #expect(reads == bases.count)
    }

    @Test("past the bound the held bases are let go: a base asked for again after larger ones is read again")
    func pastTheBoundHeldBasesAreLetGo() throws {
        let held = BranchBase()
        let paragraph = String(repeating: "word ", count: 100_000)  // 500 KB a block, 10 a base: 5 MB
        let large = try (0..<4).map { _ in
            (id: try SnapshotID.random(), bytes: SnapshotContent.encode(try WritingFixture.paragraphs(Array(repeating: paragraph, count: 10))))
        }
        var reads = 0
        for base in large + [large[0]] { _ = try held.content(of: base.id) { reads += 1; return base.bytes } }
        #expect(large.reduce(0) { $0 + $1.bytes.count } > BranchBase.heldBytes)
        #expect(reads == large.count + 1)
    }
}
