import CryptoVault
import Foundation
import Registers
import Testing
@testable import Writing

/// The adoption merge (`BranchMerge`, block by block) against the real `git merge-file -p` (git's
/// default style and level) on 10,000 seeded random documents, each block written to git as one
/// line: its id in hex, its kind and its text. Base, ours and theirs are a document and two edits
/// of it (blocks inserted, deleted, rewritten, retyped, moved; some edits shared by both sides),
/// the way a document and a branch against it drift apart.
///
/// What must hold for every triple:
/// - git merges cleanly: ours gives git's lines exactly, or refuses as `.branchConflict` with
///   nothing changed (both sides kept). We may refuse more than git for two reasons only: git's
///   default level settles a conflict whose two sides end up the same ("zealous"; such a refusal
///   must then conflict in git's eager `--diff3` run), and git happily writes a block that both
///   sides moved to different places twice, which our merge refuses (a block id must be unique).
/// - git conflicts: ours refuses too, or its merge holds every line git kept of either side.
///   Changes to neighbouring blocks touch, and touching changes conflict, in git as in ours.
@Suite struct MergeAgainstGitTests {
    static let tripleCount = 10_000

    @Test("BranchMerge agrees with git merge-file on 10,000 random block triples, or refuses where git merged, and never drops a line git kept")
    func agreesWithGitMergeFile() throws {
        try #require(GitMergeFile.isInstalled, "git is not installed at /usr/bin/git: scripts/install-deps installs it; this test needs the real git merge-file")
        var generator = SeededGenerator(seed: 0x5EED_0015)
        let triples = (0..<Self.tripleCount).map { _ in BlockTriple.make(&generator) }
        let gitResults = try GitMergeFile.run(triples.map(\.lines), style: "")
        try #require(gitResults.count == triples.count, "git ran \(gitResults.count) merges of \(triples.count)")
        var tally = Tally()
        for (index, (triple, git)) in zip(triples, gitResults).enumerated() {
            // git exits with the number of conflicts (at most 127), 255 on an error.
            try #require((0..<128).contains(git.conflicts), "triple \(index): git merge-file failed (exit \(git.conflicts))")
            compare(triple, git, index, &tally)
        }
        print("BranchMerge against git merge-file -p on \(Self.tripleCount) block triples: \(tally)")
        // Each kind of outcome occurred, or the random documents were not exercising the merge.
        #expect(tally.sameMerge > Self.tripleCount / 3 && tally.bothConflict > 0 && tally.weRefusedGitMerged > 0, "\(tally)")
        #expect(tally.weMergedGitConflicted == 0, "\(tally)")
        try expectRefusalsConflictAtGitsEagerLevel(tally.overlapRefusals.map { triples[$0] }, tally.overlapRefusals)
    }

    /// Our refusals of overlapping changes where git merged are allowed only as git's own rule at
    /// the level ours implements: `--diff3` holds git to the "eager" level (no zealous settling of a
    /// conflict whose sides end up the same), and there git must conflict too. Without this an
    /// over-cautious merge (refusing changes that do not touch) would pass as "refused, nothing lost".
    private func expectRefusalsConflictAtGitsEagerLevel(_ refused: [BlockTriple], _ indices: [Int]) throws {
        guard !refused.isEmpty else { return }
        let eager = try GitMergeFile.run(refused.map(\.lines), style: "--diff3")
        try #require(eager.count == refused.count)
        for (index, (triple, outcome)) in zip(indices, zip(refused, eager)) {
            #expect(outcome.conflicts > 0, "triple \(index): \(triple) refused as overlapping, merged by git even at its eager level")
        }
    }

    /// How the two merges' outcomes compared.
    struct Tally: CustomStringConvertible {
        var sameMerge = 0, bothConflict = 0, weRefusedGitMerged = 0, weRefusedMovedTwice = 0, weMergedGitConflicted = 0
        /// The triples we refused as overlapping changes where git merged (not a block moved twice).
        var overlapRefusals: [Int] = []

        var description: String {
            "\(sameMerge) merged the same, \(bothConflict) conflict in both, \(weRefusedGitMerged) refused by us and merged by git "
                + "(\(weRefusedMovedTwice) of them a block moved twice), \(weMergedGitConflicted) merged by us where git conflicted"
        }
    }

    private func compare(_ triple: BlockTriple, _ git: GitMergeFile.Outcome, _ index: Int, _ tally: inout Tally) {
        let ourMerge = Result { () throws(WritingError) in try BranchMerge.merge(base: triple.base, ours: triple.ours, theirs: triple.theirs) }
        switch (ourMerge, git.conflicts) {
        case (.success(let merged), 0):
            #expect(BlockTriple.text(merged) == git.output, "triple \(index): \(triple) merged differently from git")
            tally.sameMerge += 1
        case (.failure(let error), let conflicts):
            #expect(error.code == .branchConflict, "triple \(index): refused for \(error)")
            #expect(error.message.hasPrefix("the document and the proposal"), "triple \(index): \(error.message)")
            if conflicts > 0 { tally.bothConflict += 1; return }
            tally.weRefusedGitMerged += 1
            if error.message.contains("moved the same block") { tally.weRefusedMovedTwice += 1 } else { tally.overlapRefusals.append(index) }
        case (.success(let merged), _):
            tally.weMergedGitConflicted += 1
            let ourLines = Set(Line.split(BlockTriple.text(merged)))
            let dropped = GitMergeFile.contentLines(git.output).filter { !ourLines.contains($0) }
            #expect(dropped.isEmpty, "triple \(index): \(triple) merged by us without \(dropped) that git kept")
        }
    }
}

/// A document and two edits of it, as block lists and as git's one-line-per-block files.
struct BlockTriple: CustomStringConvertible {
    let base: DocumentContent
    let ours: DocumentContent
    let theirs: DocumentContent

    var lines: (base: String, ours: String, theirs: String) { (Self.text(base), Self.text(ours), Self.text(theirs)) }
    var description: String { "base \(Self.text(base).debugDescription) ours \(Self.text(ours).debugDescription) theirs \(Self.text(theirs).debugDescription)" }

    /// One line per block: as bytes, distinct exactly when the blocks' ids or encodings are
    /// (the texts have no line breaks, and "é" and "e\u{301}" stay different bytes, as in the merge).
    static func text(_ content: DocumentContent) -> String {
        content.blocks.map { "\($0.id.hex) \($0.kind) \($0.text)\n" }.joined()
    }

    static let words = ["the", "note", "client", "said", "é", "e\u{301}", "slept", "42", "—", "🙂", "plan", "Ω"]
    static let kinds: [BlockKind] = [.paragraph, .paragraph, .paragraph, .heading(level: 1), .heading(level: 2), .listItem, .quote]

    static func make(_ generator: inout SeededGenerator) -> BlockTriple {
        let base = (0..<Int.random(in: 0...10, using: &generator)).map { _ in freshBlock(&generator) }
        // Sometimes both sides start with the same edits: the merge must take a shared change once.
        let shared = Int.random(in: 0..<4, using: &generator) == 0 ? edited(base, &generator) : base
        let ours = edited(shared, &generator), theirs = edited(shared, &generator)
        return BlockTriple(base: DocumentContent(blocks: base), ours: DocumentContent(blocks: ours), theirs: DocumentContent(blocks: theirs))
    }

    /// `blocks` after up to four random edits of the kinds a writer makes.
    static func edited(_ blocks: [Block], _ generator: inout SeededGenerator) -> [Block] {
        var blocks = blocks
        for _ in 0..<Int.random(in: 0...4, using: &generator) {
            let position = Int.random(in: 0...blocks.count, using: &generator)
            let operation = Int.random(in: 0..<5, using: &generator)
            if position == blocks.count || operation == 0 {
                blocks.insert(freshBlock(&generator), at: position)
                continue
            }
            switch operation {
            case 1: blocks.remove(at: position)
            case 2: blocks[position].text = sentence(&generator)
            case 3: blocks[position].kind = kinds.randomElement(using: &generator)!
            default:
                let moved = blocks.remove(at: position)
                blocks.insert(moved, at: Int.random(in: 0...blocks.count, using: &generator))
            }
        }
        return blocks
    }

    /// A new block with an id from the seeded generator, so a failing triple can be replayed.
    static func freshBlock(_ generator: inout SeededGenerator) -> Block {
        let bytes = (0..<2).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
        return Block(id: try! BlockID(bytes: bytes), kind: kinds.randomElement(using: &generator)!, text: sentence(&generator))
    }

    static func sentence(_ generator: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...3, using: &generator)).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
    }
}
