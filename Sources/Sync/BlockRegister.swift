import CryptoVault
import Writing

/// One block's history in a replica: every value written to it, by which record, and the heads
/// (the values no later write of the block has seen), and its text as a sequence of named
/// characters. One head is the block's value; several are concurrent writes, settled by `resolve`
/// (SECURITY.md §19.3): fields merge three-way, the text character by character.
struct BlockRegister: Sendable {
    struct Write: Sendable {
        let entry: Int
        let value: BlockValue
    }

    let id: BlockID
    let document: NodeID
    /// The values as written: a present block's text is empty there (its text is its characters).
    private(set) var writes: [Write] = []
    /// The text each write's record saw, once asked for: it never changes, since nothing arriving
    /// later is in that record's past.
    private var seen: [Int: String] = [:]
    private(set) var heads: [Int] = []
    /// The block's text: every character ever typed in it, deleted ones marked.
    var text = TextSequence()
    private var writeOfEntry: [Int: Int] = [:]
    /// Each device's writes of this block, in counter order (by history device index).
    private var writesOfDevice: [Int: [Int]] = [:]
    /// Merged values of sets of writes, by the sorted write indices: a base once computed never changes.
    private var merges: [[Int]: BlockValue] = [:]

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
        heads.removeAll { history.precedes(writes[$0].entry, entry) }
        heads.append(writes.count)
        writeOfEntry[entry] = writes.count
        writesOfDevice[history.entries[entry].device, default: []].append(writes.count)
        writes.append(Write(entry: entry, value: value))
    }

    /// The block's value, its text the merged text, and the conflicts its writes hold: fields both
    /// sides changed (or a delete against a change), and overlapping edits of the text.
    mutating func resolve(history: CausalHistory) -> (value: BlockValue, conflicts: [SyncConflict]) {
        var conflicts: [SyncConflict] = []
        var value = heads.count == 1 ? writes[heads[0]].value : merged(heads, history: history, conflicts: &conflicts)
        if case .present(let key, var block) = value {
            block.text = text.text
            value = .present(orderKey: key, block: block)
        }
        conflicts += textConflicts(history: history)
        return (value, conflicts)
    }

    /// The value of the highest-ranked present write not in record `entry`'s past, with the text
    /// its record saw; nil when there is none (SECURITY.md §19.3's removal conflicts).
    mutating func value(unseenBy entry: Int, history: CausalHistory) -> BlockValue? {
        let unseen = writes.indices.filter { writes[$0].value != .deleted && !history.precedes(writes[$0].entry, entry) }
        guard let highest = unseen.max(by: { history.ranksBelow(writes[$0].entry, writes[$1].entry) }) else { return nil }
        return value(of: highest, history: history)
    }

    /// Write `index`'s value with the text its record saw.
    private mutating func value(of index: Int, history: CausalHistory) -> BlockValue {
        guard case .present(let key, var block) = writes[index].value else { return writes[index].value }
        let entry = writes[index].entry
        if let known = seen[entry] {
            block.text = known
        } else {
            block.text = text.text { history.precedes(Int($0), entry) }
            seen[entry] = block.text
        }
        return .present(orderKey: key, block: block)
    }

    /// Folds the writes `set` in rank order: each next one is merged with what came before against
    /// their common past; a conflict keeps the next (higher-ranked) write and reports the rest.
    /// The value comes back without its text (the caller puts the merged text in): a text is the
    /// whole block, so it is worked out only where the merge needs it (`mergedFields`) and for a
    /// conflict's sides.
    private mutating func merged(_ set: [Int], history: CausalHistory, conflicts: inout [SyncConflict]) -> BlockValue {
        if set.count == 1 { return writes[set[0]].value }
        let ordered = set.sorted { history.ranksBelow(writes[$0].entry, writes[$1].entry) }
        var value = writes[ordered[0]].value
        var folded = [ordered[0]]
        for next in ordered.dropFirst() {
            let base = commonBase(of: folded, and: next, history: history)
            if let merged = mergedFields(base: base, value, folded, next, history: history) {
                folded.append(next)
                value = merged
                continue
            }
            conflicts.append(conflict(losing: folded, value: withText(value, seenBy: folded, history: history),
                                      winning: self.value(of: next, history: history), history: history))
            value = writes[next].value
            folded = [next]
        }
        return value
    }

    /// `ConflictDetector.merge` of the values folded so far (`value`, by the writes `folded`) and
    /// write `next`, against `base`, without text. Two present values over a present base merge by
    /// their fields alone, whatever their texts (the text is no field), so their texts are not
    /// worked out; a deleted value or a missing or deleted base is compared with the texts, since
    /// "unchanged" there includes the text.
    private mutating func mergedFields(base: (value: BlockValue, writes: [Int])?, _ value: BlockValue, _ folded: [Int], _ next: Int,
                                       history: CausalHistory) -> BlockValue? {
        let nextValue = writes[next].value
        if let base, case .present = base.value, case .present = value, case .present = nextValue {
            return ConflictDetector.merge(base: base.value, value, nextValue)
        }
        let merged = ConflictDetector.merge(base: base.map { withText($0.value, seenBy: $0.writes, history: history) },
                                            withText(value, seenBy: folded, history: history), self.value(of: next, history: history))
        guard case .present(let key, var block)? = merged else { return merged }
        block.text = ""
        return .present(orderKey: key, block: block)
    }

    /// `value` with the text the writes `set` saw together: their characters, less those any of them deleted.
    private func withText(_ value: BlockValue, seenBy set: [Int], history: CausalHistory) -> BlockValue {
        guard case .present(let key, var block) = value, !text.isEmpty else { return value }
        let entries = set.map { writes[$0].entry }
        block.text = text.text { character in entries.contains { history.precedes(Int(character), $0) } }
        return .present(orderKey: key, block: block)
    }

    /// The value of the latest writes in the past of both `next` and one of `folded`, or nil if none.
    private mutating func commonBase(of folded: [Int], and next: Int, history: CausalHistory) -> (value: BlockValue, writes: [Int])? {
        // A device's writes form a chain, so only its latest common one can be maximal: the last of
        // its writes of this block with a counter both `next` and one of `folded` have seen.
        var perDevice: [Int: Int] = [:]
        let nextClock = history.entries[writes[next].entry].clock
        for (device, chain) in writesOfDevice {
            let seenByFolded = folded.map { history.entries[writes[$0].entry].clock }.map { device < $0.count ? $0[device] : 0 }.max() ?? 0
            let bound = min(device < nextClock.count ? nextClock[device] : 0, seenByFolded)
            var low = 0, high = chain.count
            while low < high {
                let middle = (low + high) / 2
                if history.entries[writes[chain[middle]].entry].record.counter <= bound { low = middle + 1 } else { high = middle }
            }
            if low > 0, chain[low - 1] != next { perDevice[device] = chain[low - 1] }
        }
        let candidates = Array(perDevice.values)
        let latest = candidates.filter { a in !candidates.contains { b in b != a && history.precedes(writes[a].entry, writes[b].entry) } }
        guard !latest.isEmpty else { return nil }
        let key = latest.sorted()
        if let known = merges[key] { return (known, key) }
        var ignored: [SyncConflict] = []
        let value = merged(key, history: history, conflicts: &ignored)
        merges[key] = value
        return (value, key)
    }

    private func conflict(losing: [Int], value: BlockValue, winning: BlockValue, history: CausalHistory) -> SyncConflict {
        // Named by the block and the losing writes' records: the same on every device.
        var input = Array("SealedVault sync conflict v1".utf8) + [0] + id.bytes
        for hash in losing.map({ history.entries[writes[$0].entry].record.hash }).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            input += hash
        }
        let branch = try! BranchID(bytes: Array(SHA256.hash(input).prefix(16)))
        return SyncConflict(branch: branch, document: document, block: id, losing: value, winning: winning)
    }

    /// The conflicts of each pair of concurrent records whose text edits overlap or whose words
    /// touch: one for each of the two that typed letters or digits in the block, its value of the
    /// block (as its device wrote it) the losing side, the side its branch proposes, and the
    /// other's the winning one; one for the lower-ranked record's side when neither typed. The
    /// merged text keeps every character both typed but may splice a word typed next to what the
    /// other deleted or typed ("d0w1 d0w85 d0w2": one deletes "d0w85 ", the other replaces the word
    /// by "d2w90", and the text shows "d0w1 d2w90d0w2"), so every word typed is whole in a branch
    /// whatever the ranks (SECURITY.md §19.3). Named by the block and both records, the losing
    /// side's first, so a record meeting two others makes two branches.
    private mutating func textConflicts(history: CausalHistory) -> [SyncConflict] {
        let pairs = Set((text.overlappingEdits + text.gluedWords { history.precedes(Int($0), Int($1)) }).map { [$0.0, $0.1] })
        return pairs.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { pair -> [SyncConflict] in
            let (lower, higher) = history.ranksBelow(Int(pair[0]), Int(pair[1])) ? (pair[0], pair[1]) : (pair[1], pair[0])
            let typed = [lower, higher].filter { text.typedWordScalars($0) }
            let losers = typed.isEmpty ? [lower] : typed
            return losers.compactMap { loser in textConflict(losing: Int(loser), winning: Int(loser == lower ? higher : lower), history: history) }
        }
    }

    /// The text conflict whose branch proposes record `losing`'s value of the block, with the text it saw.
    private mutating func textConflict(losing low: Int, winning high: Int, history: CausalHistory) -> SyncConflict? {
        guard let lowWrite = writeOfEntry[low], let highWrite = writeOfEntry[high] else { return nil }
        let losing = value(of: lowWrite, history: history), winning = value(of: highWrite, history: history)
        var input = Array("SealedVault text conflict v1".utf8) + [0] + id.bytes
        input += history.entries[low].record.hash + history.entries[high].record.hash
        let branch = try! BranchID(bytes: Array(SHA256.hash(input).prefix(16)))
        return SyncConflict(branch: branch, document: document, block: id, losing: losing, winning: winning)
    }
}
