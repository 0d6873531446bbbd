import Testing
@testable import Writing

/// `SequenceDiff` searches twice (the cost untraced, then the script with a trace of that size) and
/// gives up at once when the symbols alone need more edits than the bound: each script must be the
/// one the single traced search found (snapshot deltas, word diffs and merges are made from it).
@Suite struct SequenceDiffTests {
    @Test(arguments: [3, 12, 40, SequenceDiff.maximumEditCost])
    func theScriptIsTheOneASingleTracedSearchFinds(bound: Int) {
        var generator = SeededGenerator(seed: 0xD1FF_0000 + UInt64(bound))
        for _ in 0..<1_500 {
            let (old, new) = Self.pair(&generator)
            #expect(SequenceDiff.hunks(old, new, maximumEditCost: bound) == SingleTracedSearch.hunks(old, new, maximumEditCost: bound),
                    "\(old) -> \(new) at bound \(bound)")
        }
    }

    @Test func aMiddlePastTheBoundIsOneReplacementAndTheHunksRebuildTheNewSide() {
        let old: [Int32] = [0, 1, 2, 3, 4, 5, 6, 9], new: [Int32] = [0, 7, 8, 2, 5, 4, 3, 9]
        #expect(SequenceDiff.hunks(old, new, maximumEditCost: 5) == [DiffHunk(oldStart: 1, oldCount: 6, newStart: 1, newCount: 6)])
        let hunks = SequenceDiff.hunks(old, new, maximumEditCost: 100)
        #expect(hunks.count > 1)
        var rebuilt: [Int32] = [], index = 0
        for hunk in hunks {
            rebuilt += old[index..<hunk.oldStart] + new[hunk.newStart..<(hunk.newStart + hunk.newCount)]
            index = hunk.oldStart + hunk.oldCount
        }
        #expect(rebuilt + old[index...] == new)
    }

    /// The count is a floor: when it says "past the bound", the search would have said so too.
    @Test func theSymbolCountNeverExceedsTheCostOfTheShortestScript() {
        var generator = SeededGenerator(seed: 0xF100_4000)
        for _ in 0..<1_500 {
            let (old, new) = Self.pair(&generator)
            let cost = SingleTracedSearch.hunks(old, new, maximumEditCost: old.count + new.count).reduce(0) { $0 + $1.oldCount + $1.newCount }
            #expect(SequenceDiff.differingSymbols(old, new) <= cost)
        }
        #expect(SequenceDiff.differingSymbols([0, 0, 1], [1, 2, 2, 2]) == 5)
        #expect(SequenceDiff.differingSymbols([-1, 4], [4]) == 1)  // not a symbol table's: the length difference
    }

    /// Two sequences over a small alphabet: unrelated, or the second an edit of the first.
    static func pair(_ generator: inout SeededGenerator) -> ([Int32], [Int32]) {
        let alphabet = Int32.random(in: 2...12, using: &generator)
        let old = (0..<Int.random(in: 0...40, using: &generator)).map { _ in Int32.random(in: 0..<alphabet, using: &generator) }
        guard Bool.random(using: &generator) else {
            return (old, (0..<Int.random(in: 0...40, using: &generator)).map { _ in Int32.random(in: 0..<alphabet, using: &generator) })
        }
        var new = old
        for _ in 0..<Int.random(in: 0...8, using: &generator) {
            if !new.isEmpty, Bool.random(using: &generator) {
                new.remove(at: Int.random(in: 0..<new.count, using: &generator))
            } else {
                new.insert(Int32.random(in: 0..<alphabet, using: &generator), at: Int.random(in: 0...new.count, using: &generator))
            }
        }
        return (old, new)
    }
}

/// `SequenceDiff` as it was before the two passes (3723e8a): one greedy search keeping its trace
/// from the first step, the reference the two passes must agree with.
enum SingleTracedSearch {
    static func hunks(_ old: [Int32], _ new: [Int32], maximumEditCost: Int) -> [DiffHunk] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let a = Array(old[prefix..<(old.count - suffix)]), b = Array(new[prefix..<(new.count - suffix)])
        if a.isEmpty && b.isEmpty { return [] }
        let whole = [DiffHunk(oldStart: prefix, oldCount: a.count, newStart: prefix, newCount: b.count)]
        guard !a.isEmpty, !b.isEmpty, let operations = shortestEdit(a, b, min(a.count + b.count, maximumEditCost)) else { return whole }
        var result: [DiffHunk] = [], x = prefix, y = prefix, index = 0
        while index < operations.count {
            if operations[index] == 0 { x += 1; y += 1; index += 1; continue }
            var deleted = 0, inserted = 0
            while index < operations.count, operations[index] != 0 {
                if operations[index] == 1 { deleted += 1 } else { inserted += 1 }
                index += 1
            }
            result.append(DiffHunk(oldStart: x, oldCount: deleted, newStart: y, newCount: inserted))
            x += deleted
            y += inserted
        }
        return result
    }

    /// 0 equal, 1 delete, 2 insert.
    static func shortestEdit(_ a: [Int32], _ b: [Int32], _ bound: Int) -> [Int]? {
        let n = a.count, m = b.count, offset = bound + 1
        var v = [Int32](repeating: 0, count: 2 * bound + 3), trace: [Int32] = []
        for d in 0...bound {
            for k in stride(from: -d, through: d, by: 2) {
                var x = k == -d || (k != d && v[k - 1 + offset] < v[k + 1 + offset]) ? Int(v[k + 1 + offset]) : Int(v[k - 1 + offset]) + 1
                var y = x - k
                while x < n, y < m, a[x] == b[y] { x += 1; y += 1 }
                v[k + offset] = Int32(x)
                if x >= n && y >= m {
                    for j in -d...d { trace.append(v[j + offset]) }
                    return walkBack(trace, d, n, m)
                }
            }
            for j in -d...d { trace.append(v[j + offset]) }
        }
        return nil
    }

    static func walkBack(_ trace: [Int32], _ cost: Int, _ n: Int, _ m: Int) -> [Int] {
        func furthest(_ d: Int, _ k: Int) -> Int { Int(trace[d * d + k + d]) }
        var reversed: [Int] = [], x = n, y = m, d = cost
        while d > 0 {
            let k = x - y
            let down = k == -d || (k != d && furthest(d - 1, k - 1) < furthest(d - 1, k + 1))
            let previousK = down ? k + 1 : k - 1
            let previousX = furthest(d - 1, previousK)
            let middleX = down ? previousX : previousX + 1
            while x > middleX { reversed.append(0); x -= 1; y -= 1 }
            reversed.append(down ? 2 : 1)
            x = previousX
            y = previousX - previousK
            d -= 1
        }
        while x > 0 { reversed.append(0); x -= 1 }
        return reversed.reversed()
    }
}
