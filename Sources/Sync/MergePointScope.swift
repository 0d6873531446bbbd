import Writing

/// Which blocks a merge point folds (SECURITY.md §19.3, merge-design §1.5): only those written by
/// a record in the merge record's past that is not in the inclusive past of its device's previous
/// record (every block for a device's first record). An implementation bound, never a change of
/// result: a block with no such write has at the merge point the maximal writes it had at that
/// previous record, and when those are concurrent a held record of two or more parents below it
/// has exactly them as maximal writes, so the conflicts they make are made already. So over a
/// device's chain each record's writes are looked at once, whatever parents a hostile device
/// lists, and no merge costs a fold of every block the project holds.
struct MergePointScope: Sendable {
    /// The blocks each record wrote (0x02), by history entry; records writing none are left out.
    private var blocksWritten: [Int: [BlockID]] = [:]
    /// Blocks looked at by merge points (their maximal writes found, folded when two or more),
    /// counted for the tests bounding a merge's cost (`MergePointBoundTests`).
    private(set) var blocksExamined = 0

    mutating func note(_ blocks: [BlockID], writtenBy entry: Int) {
        if !blocks.isEmpty { blocksWritten[entry] = blocks }
    }

    mutating func count(examined blocks: Int) { blocksExamined += blocks }

    /// The blocks merge point `entry` folds; nil for every block (its device's first record).
    /// A device's previous record is always in its next one's past (`CausalHistory.prepare`), so
    /// the records between the two are, per device, the counters between their version vectors.
    func blocks(toFoldAt entry: Int, history: CausalHistory) -> Set<BlockID>? {
        let merge = history.entries[entry]
        guard merge.record.counter > 1,
              let previous = history.entry(device: merge.record.device, counter: merge.record.counter - 1) else { return nil }
        let seen = history.entries[previous].clock
        var blocks = Set<BlockID>()
        for (device, held) in merge.clock.enumerated() where device != merge.device {
            let from = device < seen.count ? seen[device] : 0
            guard held > from else { continue }
            for counter in (from + 1)...held {
                guard let written = history.entry(device: history.devices[device], counter: counter).flatMap({ blocksWritten[$0] }) else { continue }
                blocks.formUnion(written)
            }
        }
        return blocks
    }
}
