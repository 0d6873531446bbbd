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
enum SequenceDiff {
    static let maximumEditCost = 3_000

    static func hunks(_ old: [Int32], _ new: [Int32], maximumEditCost: Int = maximumEditCost) -> [DiffHunk] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let a = old[prefix..<(old.count - suffix)]
        let b = new[prefix..<(new.count - suffix)]
        if a.isEmpty && b.isEmpty { return [] }
        if a.isEmpty || b.isEmpty {
            return [DiffHunk(oldStart: prefix, oldCount: a.count, newStart: prefix, newCount: b.count)]
        }
        guard let operations = shortestEdit(Array(a), Array(b), maximumEditCost) else {
            return [DiffHunk(oldStart: prefix, oldCount: a.count, newStart: prefix, newCount: b.count)]
        }
        return hunks(from: operations, offset: prefix)
    }

    /// One step of an edit script, in order from the start.
    enum Operation { case equal, delete, insert }

    /// Myers' greedy search; nil when more than `limit` edits are needed.
    private static func shortestEdit(_ a: [Int32], _ b: [Int32], _ limit: Int) -> [Operation]? {
        let n = a.count, m = b.count
        let bound = min(n + m, limit)
        // v[k + offset] is the furthest x reached on diagonal k = x - y.
        let offset = bound + 1
        var v = [Int32](repeating: 0, count: 2 * bound + 3)
        // trace holds v after step d for k in -d...d, at d*d + (k + d).
        var trace: [Int32] = []
        for d in 0...bound {
            for k in stride(from: -d, through: d, by: 2) {
                var x: Int
                if k == -d || (k != d && v[k - 1 + offset] < v[k + 1 + offset]) {
                    x = Int(v[k + 1 + offset])
                } else {
                    x = Int(v[k - 1 + offset]) + 1
                }
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
