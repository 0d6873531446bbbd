import CryptoVault
import Writing

/// One block's history in a replica: every value written to it, by which record, the heads (the
/// values no later write of the block has seen), and its text as a sequence of named characters
/// (SECURITY.md §19.3). A write's text is its *view*: its text parent's view (the write whose text
/// the block showed in its record's past), less what its record deleted, plus what it typed: the
/// text its device had. Several heads fold in rank order, content (kind, cells, text) as one
/// field: where both sides changed it differently the higher-ranked head is kept whole, so the
/// block always shows one write's view, never a splice of two devices' edits (F17-1).
/// Conflicts are made at merge points (records with two or more parents): each head the fold
/// there does not keep is one conflict, named by the block and its write's record.
struct BlockRegister: Sendable {
    struct Write: Sendable {
        let entry: Int
        let value: BlockValue
        /// The write (by index) whose view this write's text starts from; nil when its record had
        /// seen no write of the block. A deleted write has a view too (its text parent's): a
        /// later write that brings the block back edits it.
        let textParent: Int?
    }

    /// A fold of a set of writes: the value it shows (its text the view of `source`, the write
    /// whose content it took), and each head a conflict step left out.
    struct Fold: Sendable {
        let value: BlockValue
        let source: Int?
        let losses: [Loss]
    }

    /// A head a fold left out (`loser`) and the head kept at that step (`winner`), by write index.
    struct Loss: Sendable, Equatable {
        let loser: Int
        let winner: Int
    }

    /// A conflict made at merge points: the loss (the highest-ranked winner it lost to) and the
    /// merge records that make it, by history entry.
    struct MadeConflict: Sendable {
        var loss: Loss
        var mergePoints: [Int]
    }

    /// The label of a block conflict's name (SECURITY.md §19.3): with the block and the losing
    /// write's record hash.
    static let conflictLabel = "SealedVault block conflict v2"

    let id: BlockID
    let document: NodeID
    /// The values as written: a present block's text is empty there (its text is its characters).
    private(set) var writes: [Write] = []
    private(set) var heads: [Int] = []
    /// The block's text: every character ever typed in it, with who deleted it.
    var text = TextSequence()
    /// Each write's view as a string, once asked for: nothing arriving later changes it.
    private var views: [Int: String] = [:]
    private var writeOfEntry: [Int: Int] = [:]
    /// Each device's writes of this block, in counter order (by history device index).
    private var writesOfDevice: [Int: [Int]] = [:]
    /// Folds of sets of writes, by the sorted write indices: a set's fold never changes.
    private var folds: [[Int]: Fold] = [:]
    /// The conflicts the merge points held make, by name.
    private(set) var made: [BranchID: MadeConflict] = [:]
    /// Each write's conflict name (`conflictName`), for the first `namedWrites` writes.
    private var writeOfName: [BranchID: Int] = [:]
    private var namedWrites = 0
    /// The names worked out for 0x03 look-ups (one SHA-256 each), counted for the tests bounding a
    /// record's cost.
    private(set) var nameWork = 0
    /// The text parent worked out for the record being integrated (`prepareText`), before its
    /// edited text was taken out: `add` takes it rather than fold views of a text not in place.
    private var prepared: (hash: [UInt8], parent: Int?)?
    /// The source the current heads show (`resolve`), for `shownCharacters`.
    private var shown: (heads: [Int], source: Int?)?
    /// The cursor's lineage, kept beside it (valid while `text.cursor` is `entry`): moving the cursor
    /// to another write's view, or reading one, then walks only the writes between the two and
    /// their common text ancestor, not the whole chain (a long block typed for months).
    private var cursorLineage: (entry: Int32, write: Int?, records: Set<Int32>)?

    init(id: BlockID, document: NodeID) {
        self.id = id
        self.document = document
    }

    /// The text, left empty here until it is put back (so that it is edited in place).
    mutating func takeText() -> TextSequence {
        defer { text = TextSequence() }
        return text
    }

    /// Adds a write of entry `entry` (admitted after every write in its past, so it supersedes
    /// exactly the heads in its past).
    mutating func add(_ value: BlockValue, entry: Int, history: CausalHistory) {
        let record = history.entries[entry]
        let parent: Int?, edited: Bool
        if let prepared, prepared.hash == record.record.hash { (parent, edited) = (prepared.parent, true) } else {
            (parent, edited) = (textParent(seenBy: record, history: history), false)
        }
        prepared = nil
        // Its edits moved the cursor from its text parent to it (the text is out, being edited); a
        // write that edits no text has its text parent's view, so a cursor there is at it too.
        if edited || text.cursor == viewEntry(parent) {
            if !edited { text.cursor = Int32(entry) }
            if cursorLineage?.entry == viewEntry(parent) {
                cursorLineage?.records.insert(Int32(entry))
                cursorLineage?.entry = Int32(entry)
                cursorLineage?.write = writes.count
            } else {
                cursorLineage = nil
            }
        }
        heads.removeAll { history.precedes(writes[$0].entry, entry) }
        heads.append(writes.count)
        writeOfEntry[entry] = writes.count
        writesOfDevice[record.device, default: []].append(writes.count)
        writes.append(Write(entry: entry, value: value, textParent: parent))
    }

    /// Before record `viewer`'s text edits of this block: works out its write's text parent and
    /// moves the text's cursor to that view, which its edits then change.
    mutating func prepareText(for viewer: CausalHistory.Entry, history: CausalHistory) {
        let parent = textParent(seenBy: viewer, history: history)
        prepared = (viewer.record.hash, parent)
        moveCursor(to: parent)
    }

    // MARK: Views

    /// The text parent of a write by record `viewer`: the source of the fold of the block's
    /// maximal writes in its past (without itself).
    private mutating func textParent(seenBy viewer: CausalHistory.Entry, history: CausalHistory) -> Int? {
        let maximal = maximalWrites(seenBy: viewer, before: true, history: history)
        if maximal.count == 1 { return maximal[0] }
        return maximal.isEmpty ? nil : fold(maximal, history: history).source
    }

    /// A write's lineage: its record and its text ancestors' records (history entries).
    func lineage(of write: Int?) -> Set<Int32> {
        var lineage = Set<Int32>(), next = write
        while let current = next {
            lineage.insert(Int32(writes[current].entry))
            next = writes[current].textParent
        }
        return lineage
    }

    /// The cursor's value for a write's view.
    private func viewEntry(_ write: Int?) -> Int32 { write.map { Int32(writes[$0].entry) } ?? TextSequence.emptyView }

    private mutating func moveCursor(to write: Int?) {
        let target = viewEntry(write)
        guard text.cursor != target else { return }
        guard let sides = sides(toward: write), var records = cursorLineage?.records else {
            let full = lineage(of: write)
            text.show(view: target, lineage: full.contains)
            cursorLineage = (target, write, full)
            return
        }
        do {
            let held = records
            text.show(view: target) { sides.own.contains($0) || (held.contains($0) && !sides.cursors.contains($0)) }
        }
        // Updated in place (the only reference once the old one is dropped).
        cursorLineage = nil
        records.subtract(sides.cursors)
        records.formUnion(sides.own)
        cursorLineage = (target, write, records)
    }

    /// The records of the cursor's lineage above its common text ancestor with `write` (`cursors`),
    /// and of `write`'s (`own`): `write`'s lineage is the cursor's less the first, plus the second.
    /// Nil when the cursor's lineage is not known (after a refused record's `undo`).
    private func sides(toward write: Int?) -> (cursors: Set<Int32>, own: Set<Int32>)? {
        guard let known = cursorLineage, known.entry == text.cursor else { return nil }
        var own = Set<Int32>(), next = write
        while let current = next, !known.records.contains(Int32(writes[current].entry)) {
            own.insert(Int32(writes[current].entry))
            next = writes[current].textParent
        }
        var cursors = Set<Int32>(), back = known.write
        while let current = back, current != next {
            cursors.insert(Int32(writes[current].entry))
            back = writes[current].textParent
        }
        return (cursors, own)
    }

    /// Write `write`'s view as a string (the cursor's, when it is there; else one pass).
    private mutating func view(of write: Int) -> String {
        if let known = views[write] { return known }
        let string: String
        if text.cursor == Int32(writes[write].entry) {
            string = text.text
        } else if let sides = sides(toward: write), let held = cursorLineage?.records {
            string = text.text(inLineage: { sides.own.contains($0) || (held.contains($0) && !sides.cursors.contains($0)) })
        } else {
            string = text.text(inLineage: lineage(of: write).contains)
        }
        views[write] = string
        return string
    }

    /// Whether some write of the block left it with `block`'s kind, cells and text (that write's
    /// view: what its device showed after it): the records hold those words, in its history.
    mutating func someWriteShowed(_ block: Block) -> Bool {
        for index in writes.indices {
            guard case .present(_, let written) = writes[index].value, written.kind == block.kind, written.rows == block.rows else { continue }
            if view(of: index) == block.text { return true }
        }
        return false
    }

    /// Write `index`'s value with its view.
    private mutating func filled(_ index: Int) -> BlockValue {
        guard case .present(let key, var block) = writes[index].value else { return writes[index].value }
        block.text = view(of: index)
        return .present(orderKey: key, block: block)
    }

    /// The characters the block shows now (the current heads' source's view), with their places.
    func shownCharacters() -> (scalars: [Unicode.Scalar], indices: [Int32]) {
        let source: Int?
        if let shown, shown.heads == heads { source = shown.source } else { source = heads.last }
        if text.cursor == viewEntry(source) { return text.visible }
        return text.visible(inLineage: lineage(of: source).contains)
    }

    // MARK: Values

    /// The block's value (its text the view of the fold's source), and the conflicts the fold of
    /// the current heads makes (made at a merge point already, or pending: `SyncReplica`).
    mutating func resolve(history: CausalHistory) -> (value: BlockValue, conflicts: [HeldConflict]) {
        var value: BlockValue, source: Int?, conflicts: [HeldConflict] = []
        if heads.count == 1 {
            (value, source) = (writes[heads[0]].value, heads[0])
        } else {
            let fold = fold(heads, history: history)
            (value, source) = (fold.value, fold.source)
            conflicts = fold.losses.map { heldConflict($0, history: history) }
        }
        moveCursor(to: source)
        shown = (heads, source)
        if case .present(let key, var block) = value {
            block.text = text.text
            value = .present(orderKey: key, block: block)
        }
        return (value, conflicts)
    }

    /// The value of the highest-ranked present write concurrent with record `entry` (neither in
    /// the other's past), with its view; nil when there is none (SECURITY.md §19.3's removal conflicts).
    mutating func value(concurrentWith entry: Int, history: CausalHistory) -> BlockValue? {
        let concurrent = writes.indices.filter {
            writes[$0].value != .deleted && !history.precedes(writes[$0].entry, entry) && !history.precedes(entry, writes[$0].entry)
        }
        guard let highest = concurrent.max(by: { history.ranksBelow(writes[$0].entry, writes[$1].entry) }) else { return nil }
        return filled(highest)
    }

    /// The block as record `entry` saw it: the fold of its writes in that record's past (the record
    /// itself included, or not when `before`); nil when it had seen no write of the block. What a
    /// conflict's branch proposes for the blocks around its own.
    mutating func value(seenBy entry: Int, before: Bool = false, history: CausalHistory) -> BlockValue? {
        let maximal = maximalWrites(seenBy: history.entries[entry], before: before, history: history)
        guard !maximal.isEmpty else { return nil }
        return maximal.count == 1 ? filled(maximal[0]) : fold(maximal, history: history).value
    }

    /// The block's maximal writes in the past of record `viewer` (without its own when `before`).
    private func maximalWrites(seenBy viewer: CausalHistory.Entry, before: Bool, history: CausalHistory) -> [Int] {
        var latest: [Int] = []
        for (device, chain) in writesOfDevice {
            var bound = device < viewer.clock.count ? viewer.clock[device] : 0
            if before, device == viewer.device, bound > 0 { bound -= 1 }
            let seen = count(of: chain, through: bound, history: history)
            if seen > 0 { latest.append(chain[seen - 1]) }
        }
        return latest.filter { a in !latest.contains { b in b != a && history.precedes(writes[a].entry, writes[b].entry) } }.sorted()
    }

    /// Folds the writes `set` in ascending rank (SECURITY.md §19.3): each next one merges with the
    /// value so far against their base (`ConflictDetector`), content as one field; a conflict keeps
    /// the next (higher-ranked) write alone, and every head folded so far loses to it. The text is
    /// always one write's view (`source`): the next write's when the values are equal, when the
    /// value so far is the base's, or when the content is taken from it or equal on both sides;
    /// unchanged when the next is the base's or the content is the value so far's. Remembered: a
    /// set's fold never changes.
    private mutating func fold(_ set: [Int], history: CausalHistory) -> Fold {
        let key = set.sorted()
        if let known = folds[key] { return known }
        let ordered = key.sorted { history.ranksBelow(writes[$0].entry, writes[$1].entry) }
        var value = filled(ordered[0]), source = ordered[0], folded = [ordered[0]], losses: [Loss] = []
        for next in ordered.dropFirst() {
            let nextValue = filled(next), base = commonBase(of: folded, and: next, history: history)
            if let merged = ConflictDetector.merge(base: base, value, nextValue) {
                if Self.takesSource(base: base, value, nextValue) { source = next }
                value = merged
                folded.append(next)
            } else {
                losses += folded.map { Loss(loser: $0, winner: next) }
                (value, source, folded) = (nextValue, next, [next])
            }
        }
        let fold = Fold(value: value, source: source, losses: losses)
        folds[key] = fold
        return fold
    }

    /// Whether a merge of `ours` (the value so far) and `theirs` (the next write) takes its text
    /// from the next write, in `ConflictDetector.merge`'s order of cases (SECURITY.md §19.3).
    private static func takesSource(base: BlockValue?, _ ours: BlockValue, _ theirs: BlockValue) -> Bool {
        if ours == theirs || base == ours { return true }
        if base == theirs { return false }
        // Both present, merged field by field: the content's side (equal contents: the next write's).
        return ours.block == theirs.block || base?.block == ours.block
    }

    /// How many of `chain` (one device's writes, in counter order) have a counter of at most `counter`.
    private func count(of chain: [Int], through counter: UInt64, history: CausalHistory) -> Int {
        var low = 0, high = chain.count
        while low < high {
            let middle = (low + high) / 2
            if history.entries[writes[chain[middle]].entry].record.counter <= counter { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The fold of the latest writes in the past of both `next` and one of `folded`, or nil if none.
    private mutating func commonBase(of folded: [Int], and next: Int, history: CausalHistory) -> BlockValue? {
        // A device's writes form a chain, so only its latest common one can be maximal: the last of
        // its writes of this block with a counter both `next` and one of `folded` have seen.
        var perDevice: [Int: Int] = [:]
        let nextClock = history.entries[writes[next].entry].clock
        for (device, chain) in writesOfDevice {
            let seenByFolded = folded.map { history.entries[writes[$0].entry].clock }.map { device < $0.count ? $0[device] : 0 }.max() ?? 0
            let low = count(of: chain, through: min(device < nextClock.count ? nextClock[device] : 0, seenByFolded), history: history)
            if low > 0, chain[low - 1] != next { perDevice[device] = chain[low - 1] }
        }
        let candidates = Array(perDevice.values)
        let latest = candidates.filter { a in !candidates.contains { b in b != a && history.precedes(writes[a].entry, writes[b].entry) } }
        guard !latest.isEmpty else { return nil }
        return latest.count == 1 ? filled(latest[0]) : fold(latest, history: history).value
    }

    // MARK: Conflicts (SECURITY.md §19.3)

    /// Record `mergePoint` (two or more parents) folds the block's maximal writes in its past
    /// (without its own): each head the fold leaves out makes a conflict, a fact of that record.
    /// The same losing write at several merge points is one conflict, its winner the highest-ranked.
    mutating func noteMergePoint(_ mergePoint: Int, history: CausalHistory) {
        let maximal = maximalWrites(seenBy: history.entries[mergePoint], before: true, history: history)
        guard maximal.count >= 2 else { return }
        for loss in fold(maximal, history: history).losses {
            let name = conflictName(loss.loser, history: history)
            guard var known = made[name] else {
                made[name] = MadeConflict(loss: loss, mergePoints: [mergePoint])
                continue
            }
            if history.ranksBelow(writes[known.loss.winner].entry, writes[loss.winner].entry) { known.loss = loss }
            known.mergePoints.append(mergePoint)
            made[name] = known
        }
    }

    /// The conflicts the merge points held make, in name order.
    mutating func madeConflicts(history: CausalHistory) -> [HeldConflict] {
        made.values.map(\.loss).map { heldConflict($0, history: history) }.sorted { $0.conflict.branch.bytes.lexicographicallyPrecedes($1.conflict.branch.bytes) }
    }

    /// A conflict's name: SHA-256("SealedVault block conflict v2" || 0x00 || block || the losing write's record hash)[:16].
    func conflictName(_ loser: Int, history: CausalHistory) -> BranchID {
        SyncConflict.branchID(Self.conflictLabel, id.bytes + history.entries[writes[loser].entry].record.hash)
    }

    /// A loss as a conflict: the losing write's value with its view, the winner's with its view;
    /// its branch is seen from the losing write's record.
    private mutating func heldConflict(_ loss: Loss, history: CausalHistory) -> HeldConflict {
        let conflict = SyncConflict(branch: conflictName(loss.loser, history: history), document: document, block: id,
                                    losing: filled(loss.loser), winning: filled(loss.winner))
        return HeldConflict(conflict: conflict, viewer: writes[loss.loser].entry)
    }

    /// The losing side of the conflict named `branch` when a replica holding exactly the records in
    /// the past of record `carrier` (about to be admitted) makes it: made at a merge point in that
    /// past, or pending there (the fold of the block's maximal writes in that past leaves its
    /// losing write out). That write's entry and value with its view; nil for any other name.
    mutating func losingValue(named branch: BranchID, madeBefore carrier: CausalHistory.Entry, history: CausalHistory) -> (entry: Int, value: BlockValue)? {
        nameNewWrites(history: history)
        guard let loser = writeOfName[branch], history.precedes(writes[loser].entry, prepared: carrier) else { return nil }
        let madeThere = made[branch]?.mergePoints.contains { history.precedes($0, prepared: carrier) } ?? false
        if !madeThere {
            let maximal = maximalWrites(seenBy: carrier, before: true, history: history)
            guard maximal.count >= 2, fold(maximal, history: history).losses.contains(where: { $0.loser == loser }) else { return nil }
        }
        return (writes[loser].entry, filled(loser))
    }

    /// Adds the names of the writes added since the last look-up (one SHA-256 each, once).
    private mutating func nameNewWrites(history: CausalHistory) {
        guard namedWrites < writes.count else { return }
        for index in namedWrites..<writes.count { writeOfName[conflictName(index, history: history)] = index }
        nameWork += writes.count - namedWrites
        namedWrites = writes.count
    }
}
