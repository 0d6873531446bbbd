/// One change between two sequences: `oldCount` elements of the old side at `oldStart` are replaced
/// by `newCount` elements of the new side at `newStart`. Hunks come in order and never touch (at
/// least one equal element separates two hunks).
public struct DiffHunk: Sendable, Equatable {
    public let oldStart: Int
    public let oldCount: Int
    public let newStart: Int
    public let newCount: Int
}

/// The shortest edit script between two sequences of interned symbols (Myers 1986, "An O(ND)
/// Difference Algorithm and Its Variations", the greedy forward search with its trace kept for the
/// walk back). The common prefix and suffix are stripped first, so a small edit in a long document
/// costs the edit, not the document.
///
/// The search is bounded: past `maximumEditCost` edits in the stripped middle, the middle is reported
/// as one replacement. The result still reconstructs both sides exactly, it is only no longer minimal;
/// without the bound, two unrelated 100 MB documents would take hours and gigabytes (the trace
/// holds (D+1)² entries of 4 bytes: 36 MB at the bound).
///
/// The search runs twice: once without the trace, to learn the cost (or that it is past the bound),
/// then with a trace of exactly that size. A middle past the bound (a document a week of another
/// device's edits apart from its last snapshot) so costs the search alone, no 36 MB trace grown and
/// thrown away; and one whose symbols already differ by more than the bound costs a count. Both
/// passes are the search above step for step, so the script is the one a single traced pass finds.
enum SequenceDiff {
    static let maximumEditCost = 3_000

    static func hunks(_ old: [Int32], _ new: [Int32], maximumEditCost: Int = maximumEditCost) -> [DiffHunk] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let a = Array(old[prefix..<(old.count - suffix)])
        let b = Array(new[prefix..<(new.count - suffix)])
        if a.isEmpty && b.isEmpty { return [] }
        let replacement = [DiffHunk(oldStart: prefix, oldCount: a.count, newStart: prefix, newCount: b.count)]
        if a.isEmpty || b.isEmpty { return replacement }
        let limit = min(a.count + b.count, maximumEditCost)
        guard differingSymbols(a, b) <= limit, let cost = search(a, b, upTo: limit, trace: nil) else { return replacement }
        var trace = [Int32](repeating: 0, count: (cost + 1) * (cost + 1))
        _ = trace.withUnsafeMutableBufferPointer { search(a, b, upTo: cost, trace: $0) }
        return hunks(from: walkBack(trace, cost, a.count, b.count), offset: prefix)
    }

    /// One step of an edit script, in order from the start.
    enum Operation { case equal, delete, insert }

    /// A floor under the cost of any edit script: a symbol one side holds `c` more of than the other
    /// is deleted or inserted at least `c` times. Symbols are a `SymbolTable`'s (small, from 0);
    /// others get the length difference, a floor too.
    static func differingSymbols(_ a: [Int32], _ b: [Int32]) -> Int {
        let low = min(a.min() ?? 0, b.min() ?? 0), high = Int(max(a.max() ?? 0, b.max() ?? 0))
        guard low >= 0, high < 4 * (a.count + b.count) else { return abs(a.count - b.count) }
        var counts = [Int](repeating: 0, count: high + 1)
        for symbol in a { counts[Int(symbol)] += 1 }
        for symbol in b { counts[Int(symbol)] -= 1 }
        return counts.reduce(0) { $0 + abs($1) }
    }

    /// Myers' greedy search: the cost of the shortest script, nil when more than `limit` edits are
    /// needed. With `trace`, v after each step d for k in -d...d is kept at d*d + (k + d) (it must
    /// hold (limit + 1)² entries).
    private static func search(_ a: [Int32], _ b: [Int32], upTo limit: Int, trace: UnsafeMutableBufferPointer<Int32>?) -> Int? {
        let n = a.count, m = b.count
        // v[k + offset] is the furthest x reached on diagonal k = x - y.
        let offset = limit + 1
        var furthest = [Int32](repeating: 0, count: 2 * limit + 3)
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                furthest.withUnsafeMutableBufferPointer { v in
                    for d in 0...limit {
                        var k = -d
                        while k <= d {
                            var x = k == -d || (k != d && v[k - 1 + offset] < v[k + 1 + offset]) ? Int(v[k + 1 + offset]) : Int(v[k - 1 + offset]) + 1
                            var y = x - k
                            while x < n, y < m, a[x] == b[y] { x += 1; y += 1 }
                            v[k + offset] = Int32(x)
                            if x >= n && y >= m {
                                keep(v, step: d, offset: offset, in: trace)
                                return d
                            }
                            k += 2
                        }
                        keep(v, step: d, offset: offset, in: trace)
                    }
                    return nil
                }
            }
        }
    }

    /// Copies v[-d...d] into the trace at d*d, if one is kept.
    private static func keep(_ v: UnsafeMutableBufferPointer<Int32>, step d: Int, offset: Int, in trace: UnsafeMutableBufferPointer<Int32>?) {
        guard let trace else { return }
        for j in -d...d { trace[d * d + j + d] = v[j + offset] }
    }

    /// Follows the trace from (n, m) back to (0, 0), then returns the operations from the start.
    private static func walkBack(_ trace: [Int32], _ cost: Int, _ n: Int, _ m: Int) -> [Operation] {
        func furthest(_ d: Int, _ k: Int) -> Int { Int(trace[d * d + k + d]) }
        var reversed: [Operation] = []
        var x = n, y = m
        var d = cost
        while d > 0 {
            let k = x - y
            let down = k == -d || (k != d && furthest(d - 1, k - 1) < furthest(d - 1, k + 1))
            let previousK = down ? k + 1 : k - 1
            let previousX = furthest(d - 1, previousK)
            let previousY = previousX - previousK
            let middleX = down ? previousX : previousX + 1
            while x > middleX { reversed.append(.equal); x -= 1; y -= 1 }
            reversed.append(down ? .insert : .delete)
            x = previousX
            y = previousY
            d -= 1
        }
        while x > 0 { reversed.append(.equal); x -= 1 }
        return reversed.reversed()
    }

    private static func hunks(from operations: [Operation], offset: Int) -> [DiffHunk] {
        var result: [DiffHunk] = []
        var x = offset, y = offset
        var index = 0
        while index < operations.count {
            if operations[index] == .equal { x += 1; y += 1; index += 1; continue }
            var deleted = 0, inserted = 0
            while index < operations.count, operations[index] != .equal {
                if operations[index] == .delete { deleted += 1 } else { inserted += 1 }
                index += 1
            }
            result.append(DiffHunk(oldStart: x, oldCount: deleted, newStart: y, newCount: inserted))
            x += deleted
            y += inserted
        }
        return result
    }
}

/// Gives each distinct element a small integer, so that the diff compares integers. Elements that
/// are equal under `Hashable` get the same symbol; callers that need byte equality intern bytes.
struct SymbolTable<Key: Hashable> {
    private var symbols: [Key: Int32] = [:]

    mutating func symbol(_ key: Key) -> Int32 {
        if let known = symbols[key] { return known }
        let next = Int32(symbols.count)
        symbols[key] = next
        return next
    }
}
