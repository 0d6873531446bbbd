/// The differences between two texts as Unicode scalars, as hunks in order: what a device's edit
/// of a block becomes as character edits (SECURITY.md §19.3), so that only the characters it
/// changed are named and a concurrent edit elsewhere in the block never meets them.
///
/// Words are compared whole: Myers' O(ND) algorithm (1986) runs over **units** (each run of letters
/// and digits one unit, every other scalar one), and each hunk is then narrowed to the scalars that
/// differ (its common prefix and suffix set aside). So typing inside a word names only the
/// characters typed, and a word replaced by another is one delete and one insert rather than a
/// splice of the letters the two happen to share ("two" made "laptop words" keeps no "t" or "o").
enum TextDiff {
    /// Old scalars `old` replaced by new scalars `new` (either may be empty).
    struct Hunk: Equatable {
        let old: Range<Int>
        let new: Range<Int>
    }

    /// Beyond this many differing units the middle is one hunk: the work stays O(N·limit).
    static let limit = 512

    static func hunks(from a: [Unicode.Scalar], to b: [Unicode.Scalar]) -> [Hunk] {
        let whole = narrowed(Hunk(old: 0..<a.count, new: 0..<b.count), a, b)
        if whole.old.isEmpty && whole.new.isEmpty { return [] }
        if isWordClean(whole, a, b) { return [whole] }
        // The middle, widened to whole units at both ends (a change inside a word names the word).
        let widened = widen(whole, a, b)
        let oldUnits = units(a, widened.old), newUnits = units(b, widened.new)
        guard let script = myers(oldUnits.map { Array(a[$0]) }, newUnits.map { Array(b[$0]) }) else { return [narrowedIfPure(widened, a, b)] }
        return script.map { hunk in
            let old = hunk.old.isEmpty ? (hunk.old.lowerBound < oldUnits.count ? oldUnits[hunk.old.lowerBound].lowerBound : widened.old.upperBound)
                : oldUnits[hunk.old.lowerBound].lowerBound
            let oldEnd = hunk.old.isEmpty ? old : oldUnits[hunk.old.upperBound - 1].upperBound
            let new = hunk.new.isEmpty ? (hunk.new.lowerBound < newUnits.count ? newUnits[hunk.new.lowerBound].lowerBound : widened.new.upperBound)
                : newUnits[hunk.new.lowerBound].lowerBound
            let newEnd = hunk.new.isEmpty ? new : newUnits[hunk.new.upperBound - 1].upperBound
            return narrowedIfPure(Hunk(old: old..<oldEnd, new: new..<newEnd), a, b)
        }
    }

    /// The hunk narrowed to the scalars that differ when that leaves a pure insert or delete
    /// (typing or erasing inside a word); otherwise the whole units, so that a word replaced by
    /// another is never a splice of their shared letters.
    static func narrowedIfPure(_ hunk: Hunk, _ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Hunk {
        let narrow = narrowed(hunk, a, b)
        return isWordClean(narrow, a, b) ? narrow : hunk
    }

    /// A pure insert or delete that keeps words whole: its scalars all inside one word (typing or
    /// erasing in it), or its ends at word edges. Not one that takes the end of one word and the
    /// start of the next ("d1w7 d2w3" made "d2w3" by deleting "1w7 d").
    static func isWordClean(_ hunk: Hunk, _ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Bool {
        guard hunk.old.isEmpty || hunk.new.isEmpty else { return false }
        let (text, range) = hunk.old.isEmpty ? (b, hunk.new) : (a, hunk.old)
        func isEdge(_ index: Int) -> Bool { index == 0 || index == text.count || !(isWordScalar(text[index - 1]) && isWordScalar(text[index])) }
        return (isEdge(range.lowerBound) && isEdge(range.upperBound)) || text[range].allSatisfy(isWordScalar)
    }

    /// The hunk less the scalars its two sides share at the start and at the end.
    static func narrowed(_ hunk: Hunk, _ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Hunk {
        var start = 0
        while start < hunk.old.count, start < hunk.new.count, a[hunk.old.lowerBound + start] == b[hunk.new.lowerBound + start] { start += 1 }
        var end = 0
        while end < hunk.old.count - start, end < hunk.new.count - start,
              a[hunk.old.upperBound - 1 - end] == b[hunk.new.upperBound - 1 - end] { end += 1 }
        return Hunk(old: (hunk.old.lowerBound + start)..<(hunk.old.upperBound - end), new: (hunk.new.lowerBound + start)..<(hunk.new.upperBound - end))
    }

    /// The hunk grown at each end to the edges of the words it starts or ends inside, on both sides alike.
    static func widen(_ hunk: Hunk, _ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Hunk {
        var start = 0
        while start < hunk.old.lowerBound, start < hunk.new.lowerBound, isWordScalar(a[hunk.old.lowerBound - start - 1]) { start += 1 }
        var end = 0
        while hunk.old.upperBound + end < a.count, hunk.new.upperBound + end < b.count, isWordScalar(a[hunk.old.upperBound + end]) { end += 1 }
        return Hunk(old: (hunk.old.lowerBound - start)..<(hunk.old.upperBound + end), new: (hunk.new.lowerBound - start)..<(hunk.new.upperBound + end))
    }

    /// The units of `text[range]`, as ranges: each maximal run of letters and digits (Unicode
    /// `Alphabetic` or numeric) is one, every other scalar one.
    static func units(_ text: [Unicode.Scalar], _ range: Range<Int>) -> [Range<Int>] {
        var units: [Range<Int>] = []
        var index = range.lowerBound
        while index < range.upperBound {
            var end = index + 1
            if isWordScalar(text[index]) { while end < range.upperBound, isWordScalar(text[end]) { end += 1 } }
            units.append(index..<end)
            index = end
        }
        return units
    }

    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    /// The shortest edit script as hunks, or nil past `limit` differences.
    private static func myers<Element: Equatable>(_ a: [Element], _ b: [Element]) -> [Hunk]? {
        let n = a.count, m = b.count, offset = limit + 1
        var v = [Int](repeating: 0, count: 2 * offset + 1)
        var trace: [[Int]] = []
        for d in 0...limit {
            trace.append(v)
            for k in stride(from: -d, through: d, by: 2) {
                var x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1] : v[offset + k - 1] + 1
                var y = x - k
                while x < n, y < m, a[x] == b[y] { x += 1; y += 1 }
                v[offset + k] = x
                if x >= n, y >= m { return backtrack(trace, d: d, n: n, m: m, offset: offset) }
            }
        }
        return nil
    }

    /// Walks the trace back from (n, m), collecting each step's deleted or inserted scalar, then
    /// joins neighbouring steps into hunks.
    private static func backtrack(_ trace: [[Int]], d: Int, n: Int, m: Int, offset: Int) -> [Hunk] {
        var x = n, y = m
        var steps: [(x: Int, y: Int, deletes: Bool)] = []
        for step in stride(from: d, to: 0, by: -1) {
            let v = trace[step], k = x - y
            let previousK = (k == -step || (k != step && v[offset + k - 1] < v[offset + k + 1])) ? k + 1 : k - 1
            let previousX = v[offset + previousK], previousY = previousX - previousK
            while x > previousX, y > previousY { x -= 1; y -= 1 }
            if previousK == k + 1 { y -= 1; steps.append((x, y, false)) } else { x -= 1; steps.append((x, y, true)) }
        }
        var hunks: [Hunk] = []
        for step in steps.reversed() {
            let old = step.deletes ? step.x..<(step.x + 1) : step.x..<step.x
            let new = step.deletes ? step.y..<step.y : step.y..<(step.y + 1)
            if let last = hunks.last, last.old.upperBound == old.lowerBound, last.new.upperBound == new.lowerBound {
                hunks[hunks.count - 1] = Hunk(old: last.old.lowerBound..<old.upperBound, new: last.new.lowerBound..<new.upperBound)
            } else {
                hunks.append(Hunk(old: old, new: new))
            }
        }
        return hunks
    }
}
