/// A changed region of a three-way merge, in the coordinates of the three inputs.
struct MergeChange {
    var resolution: MergeResolution
    var baseStart: Int, baseCount: Int
    var ourStart: Int, ourCount: Int
    var theirStart: Int, theirCount: Int
}

/// Combines the two sides' hunks against the base into the merge's changed regions, following
/// xdiff's `xdl_do_merge` (git's merge-file) step for step, so that the regions are git's:
/// a hunk that ends before the other side's next hunk starts (in the base) is one side's change;
/// two hunks that overlap or touch are a conflict unless they are the same change, which is then
/// no region at all (the agreed stretch around it carries it); a region that overlaps or touches
/// the one before it (in ours or in theirs) joins it, and a join of different kinds is a conflict.
enum MergeChanges {
    static func combine(ours: [DiffHunk], theirs: [DiffHunk], ourSymbols: [Int32], theirSymbols: [Int32],
                        baseCount: Int, ourCount: Int, theirCount: Int) -> [MergeChange] {
        var changes: [MergeChange] = []
        var p1 = 0, p2 = 0
        while p1 < ours.count, p2 < theirs.count {
            let x1 = ours[p1], x2 = theirs[p2]
            if x1.oldStart + x1.oldCount < x2.oldStart {
                append(&changes, oursOnly(x1, theirOffset: x2.newStart - x2.oldStart))
                p1 += 1
                continue
            }
            if x2.oldStart + x2.oldCount < x1.oldStart {
                append(&changes, theirsOnly(x2, ourOffset: x1.newStart - x1.oldStart))
                p2 += 1
                continue
            }
            if !sameChange(x1, x2, ourSymbols, theirSymbols) {
                append(&changes, conflict(x1, x2))
            }
            let end1 = x1.oldStart + x1.oldCount, end2 = x2.oldStart + x2.oldCount
            if end1 >= end2 { p2 += 1 }
            if end2 >= end1 { p1 += 1 }
        }
        while p1 < ours.count {
            append(&changes, oursOnly(ours[p1], theirOffset: theirCount - baseCount))
            p1 += 1
        }
        while p2 < theirs.count {
            append(&changes, theirsOnly(theirs[p2], ourOffset: ourCount - baseCount))
            p2 += 1
        }
        return changes
    }

    private static func oursOnly(_ hunk: DiffHunk, theirOffset: Int) -> MergeChange {
        MergeChange(resolution: .ours, baseStart: hunk.oldStart, baseCount: hunk.oldCount,
                    ourStart: hunk.newStart, ourCount: hunk.newCount,
                    theirStart: hunk.oldStart + theirOffset, theirCount: hunk.oldCount)
    }

    private static func theirsOnly(_ hunk: DiffHunk, ourOffset: Int) -> MergeChange {
        MergeChange(resolution: .theirs, baseStart: hunk.oldStart, baseCount: hunk.oldCount,
                    ourStart: hunk.oldStart + ourOffset, ourCount: hunk.oldCount,
                    theirStart: hunk.newStart, theirCount: hunk.newCount)
    }

    /// The same base lines replaced by the same lines on both sides.
    private static func sameChange(_ x1: DiffHunk, _ x2: DiffHunk, _ ourSymbols: [Int32], _ theirSymbols: [Int32]) -> Bool {
        x1.oldStart == x2.oldStart && x1.oldCount == x2.oldCount && x1.newCount == x2.newCount
            && ourSymbols[x1.newStart..<(x1.newStart + x1.newCount)]
                .elementsEqual(theirSymbols[x2.newStart..<(x2.newStart + x2.newCount)])
    }

    /// Two overlapping hunks widened to the same base range: the earlier start and the later end,
    /// each side stretched by the base lines the other hunk covers beyond its own.
    private static func conflict(_ x1: DiffHunk, _ x2: DiffHunk) -> MergeChange {
        let off = x1.oldStart - x2.oldStart
        let ffo = off + x1.oldCount - x2.oldCount
        var i0 = x1.oldStart, i1 = x1.newStart, i2 = x2.newStart
        if off > 0 { i0 -= off; i1 -= off } else { i2 += off }
        var chg0 = x1.oldStart + x1.oldCount - i0
        var chg1 = x1.newStart + x1.newCount - i1
        var chg2 = x2.newStart + x2.newCount - i2
        if ffo < 0 { chg0 -= ffo; chg1 -= ffo } else { chg2 += ffo }
        return MergeChange(resolution: .conflict, baseStart: i0, baseCount: chg0,
                           ourStart: i1, ourCount: chg1, theirStart: i2, theirCount: chg2)
    }

    /// xdiff's `xdl_append_merge`: a change that overlaps or touches the previous one (in ours or in
    /// theirs) widens it. The base test is ours, not xdiff's: it keeps the regions in order in all
    /// three inputs even if the two tests above never fire for it.
    private static func append(_ changes: inout [MergeChange], _ change: MergeChange) {
        guard var last = changes.last,
              change.ourStart <= last.ourStart + last.ourCount
                || change.theirStart <= last.theirStart + last.theirCount
                || change.baseStart < last.baseStart + last.baseCount else {
            changes.append(change)
            return
        }
        if change.resolution != last.resolution { last.resolution = .conflict }
        last.baseCount = change.baseStart + change.baseCount - last.baseStart
        last.ourCount = change.ourStart + change.ourCount - last.ourStart
        last.theirCount = change.theirStart + change.theirCount - last.theirStart
        changes[changes.count - 1] = last
    }
}
