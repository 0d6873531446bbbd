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
    /// Every pair of writes with one below this index has been checked for a register conflict.
    private var pairsChecked = 0
    /// Each write that loses a register conflict, by index: the highest-ranked write it conflicts with.
    private var beatenBy: [Int: Int] = [:]
    /// The work done looking conflicts up by their names (SECURITY.md §19.2): names worked out
    /// (a SHA-256 each) and writes considered for a name of the earlier rule. Counted so that the
    /// bound on what one record's 0x03s may cost can be checked.
    private(set) var nameWork = 0
    /// Every conflict name this block's writes give (`losingRecord(named:)`), with the losing
    /// record's entry: worked out once, as writes arrive, not at each 0x03 looked up. Writes are
    /// only ever added, so the names of the first `namedWrites` writes never change.
    private var losingRecordOfName: [BranchID: Int] = [:]
    private var namedWrites = 0

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

    /// The block's value, its text the merged text, and the conflicts its writes make: pairs of
    /// concurrent writes whose fields both changed (or a delete against a change), and overlapping
    /// edits of the text. Both are facts of two records, so what arrives later never undoes one.
    mutating func resolve(history: CausalHistory) -> (value: BlockValue, conflicts: [HeldConflict]) {
        var value = heads.count == 1 ? writes[heads[0]].value : merged(heads, history: history)
        if case .present(let key, var block) = value {
            block.text = text.text
            value = .present(orderKey: key, block: block)
        }
        return (value, registerConflicts(history: history) + textConflicts(history: history))
    }

    /// The value of the highest-ranked present write concurrent with record `entry` (neither in
    /// the other's past), with the text its record saw; nil when there is none (SECURITY.md
    /// §19.3's removal conflicts).
    mutating func value(concurrentWith entry: Int, history: CausalHistory) -> BlockValue? {
        let concurrent = writes.indices.filter {
            writes[$0].value != .deleted && !history.precedes(writes[$0].entry, entry) && !history.precedes(entry, writes[$0].entry)
        }
        guard let highest = concurrent.max(by: { history.ranksBelow(writes[$0].entry, writes[$1].entry) }) else { return nil }
        return value(of: highest, history: history)
    }

    /// The block as record `entry` saw it: its writes in that record's past (the record itself
    /// included, or not when `before`), folded, with the text the record saw; nil when it had seen
    /// no write of the block. What a conflict's branch proposes for the blocks around its own.
    mutating func value(seenBy entry: Int, before: Bool = false, history: CausalHistory) -> BlockValue? {
        let viewer = history.entries[entry]
        var latest: [Int] = []
        for (device, chain) in writesOfDevice {
            var bound = device < viewer.clock.count ? viewer.clock[device] : 0
            if before, device == viewer.device { bound -= 1 }
            let seen = count(of: chain, through: bound, history: history)
            if seen > 0 { latest.append(chain[seen - 1]) }
        }
        let maximal = latest.filter { a in !latest.contains { b in b != a && history.precedes(writes[a].entry, writes[b].entry) } }
        guard !maximal.isEmpty else { return nil }
        let value = memoMerged(maximal, history: history)
        guard case .present(let orderKey, var block) = value else { return value }
        block.text = textSeen(by: entry, history: history)
        return .present(orderKey: orderKey, block: block)
    }

    /// Write `index`'s value with the text its record saw.
    private mutating func value(of index: Int, history: CausalHistory) -> BlockValue {
        guard case .present(let key, var block) = writes[index].value else { return writes[index].value }
        block.text = textSeen(by: writes[index].entry, history: history)
        return .present(orderKey: key, block: block)
    }

    /// The text record `entry` saw: its characters typed in that record's past and not deleted there.
    private mutating func textSeen(by entry: Int, history: CausalHistory) -> String {
        if let known = seen[entry] { return known }
        let shown = text.text { history.precedes(Int($0), entry) }
        seen[entry] = shown
        return shown
    }

    /// Folds the writes `set` in rank order: each next one is merged with what came before against
    /// their common past; a conflict keeps the next (higher-ranked) write alone (its pairs make the
    /// conflicts: `registerConflicts`). The value comes back without its text (the caller puts the
    /// merged text in): a text is the whole block, so it is worked out only where the merge needs
    /// it (`mergedFields`) and for a conflict's sides.
    private mutating func merged(_ set: [Int], history: CausalHistory) -> BlockValue {
        if set.count == 1 { return writes[set[0]].value }
        let ordered = set.sorted { history.ranksBelow(writes[$0].entry, writes[$1].entry) }
        var value = writes[ordered[0]].value
        var folded = [ordered[0]]
        for next in ordered.dropFirst() {
            let base = commonBase(of: folded, and: next, history: history)
            if let merged = mergedFields(base: base, value, folded, next, history: history) {
                folded.append(next)
                value = merged
            } else {
                value = writes[next].value
                folded = [next]
            }
        }
        return value
    }

    /// The fold of the writes `set` (`merged`), remembered: a set's value never changes.
    private mutating func memoMerged(_ set: [Int], history: CausalHistory) -> BlockValue {
        let key = set.sorted()
        if let known = merges[key] { return known }
        let value = merged(key, history: history)
        merges[key] = value
        return value
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
            let low = count(of: chain, through: min(device < nextClock.count ? nextClock[device] : 0, seenByFolded), history: history)
            if low > 0, chain[low - 1] != next { perDevice[device] = chain[low - 1] }
        }
        let candidates = Array(perDevice.values)
        let latest = candidates.filter { a in !candidates.contains { b in b != a && history.precedes(writes[a].entry, writes[b].entry) } }
        guard !latest.isEmpty else { return nil }
        return (memoMerged(latest, history: history), latest.sorted())
    }

    /// SECURITY.md §19.3's register conflicts: two concurrent writes (neither in the other's past,
    /// heads or not) whose values do not merge against their base make the lower-ranked one lose.
    /// Each losing write is one conflict, its value (with the text its record saw) the losing side
    /// and the highest-ranked write it conflicts with the winning one; its branch proposes the
    /// document as that write's record saw it. Pairs are checked once, as their later write arrives.
    private mutating func registerConflicts(history: CausalHistory) -> [HeldConflict] {
        for index in pairsChecked..<writes.count {
            for other in concurrentWrites(before: index, history: history) {
                let (low, high) = history.ranksBelow(writes[other].entry, writes[index].entry) ? (other, index) : (index, other)
                if let known = beatenBy[low], history.ranksBelow(writes[high].entry, writes[known].entry) { continue }
                let base = commonBase(of: [low], and: high, history: history)
                guard mergedFields(base: base, writes[low].value, [low], high, history: history) == nil else { continue }
                beatenBy[low] = high
            }
        }
        pairsChecked = writes.count
        return beatenBy.keys.sorted().map { low in
            let losing = value(of: low, history: history), winning = value(of: beatenBy[low]!, history: history)
            return HeldConflict(conflict: conflict(losing: low, value: losing, winning: winning, history: history), viewer: writes[low].entry)
        }
    }

    /// The record a conflict's name (SECURITY.md §19.3) gives as its losing side, among this block's
    /// writes: a register conflict's losing write, or a text conflict's losing record (of two
    /// concurrent writes, its name being the block and both records' hashes); nil when no write
    /// here gives that name. So the record a branch is seen from does not hang on whether the
    /// replica makes the conflict itself (a 0x03 may name two concurrent writes it finds none in).
    /// Looked up in `losingRecordOfName`, each name worked out once (attack review s8, N6).
    mutating func losingRecord(named branch: BranchID, history: CausalHistory) -> Int? {
        nameNewWrites(history: history)
        return losingRecordOfName[branch]
    }

    /// Adds to `losingRecordOfName` the names of the writes added since it was last brought up to
    /// date: each write's register name, and both text names of each pair it makes with a
    /// concurrent write added before it (so each pair is named once, as its later write is).
    private mutating func nameNewWrites(history: CausalHistory) {
        guard namedWrites < writes.count else { return }
        for index in namedWrites..<writes.count {
            let entry = writes[index].entry, hash = history.entries[entry].record.hash
            name(SyncConflict.branchID("SealedVault sync conflict v1", id.bytes + hash), losing: entry)
            for other in concurrentWrites(before: index, history: history) {
                let otherEntry = writes[other].entry, otherHash = history.entries[otherEntry].record.hash
                name(SyncConflict.branchID("SealedVault text conflict v1", id.bytes + hash + otherHash), losing: entry)
                name(SyncConflict.branchID("SealedVault text conflict v1", id.bytes + otherHash + hash), losing: otherEntry)
            }
        }
        namedWrites = writes.count
    }

    private mutating func name(_ branch: BranchID, losing entry: Int) {
        nameWork += 1
        if losingRecordOfName[branch] == nil { losingRecordOfName[branch] = entry }
    }

    /// The losing side a conflict's name gives among this block's writes (`losingRecord(named:)`):
    /// that record's entry and its write's value with the text it saw, exactly what every device's
    /// own conflict of that name carries (`registerConflicts`, `textConflict`); nil when no write
    /// here gives the name.
    mutating func losingValue(named branch: BranchID, history: CausalHistory) -> (entry: Int, value: BlockValue)? {
        guard let entry = losingRecord(named: branch, history: history), let write = writeOfEntry[entry] else { return nil }
        return (entry, value(of: write, history: history))
    }

    /// A name of the earlier rule (SECURITY.md §19.2; attack review s6, A11): records made before
    /// conflicts were facts of two writes named a fold's several losing writes at once, by the block
    /// and their records' hashes in ascending order. Such a name is looked for among sets of two or
    /// more pairwise concurrent writes of this block that the past of record `carrier` holds,
    /// smaller sets first and, within a size, in the order of their hashes; at most `budget` sets
    /// are named in all, and each search is first charged the writes it considers (the caller's
    /// budget is per record, so a record naming unknown conflicts costs a bounded work, whatever
    /// its count of 0x03s: attack review s8, N6). A search the budget cannot pay for finds nothing.
    /// Returns the fold's value (its writes merged as the register merges them, with the text the
    /// set saw together: what the earlier rule's losing side was), or nil.
    mutating func foldValue(named branch: BranchID, seenBy carrier: CausalHistory.Entry, history: CausalHistory, budget: inout Int) -> BlockValue? {
        // The writes in the carrier's past, counted per device (each device's writes are a chain)
        // and paid for before any is looked at.
        let seen = writesOfDevice.map { device, chain in
            chain.prefix(count(of: chain, through: device < carrier.clock.count ? carrier.clock[device] : 0, history: history))
        }
        let considered = seen.reduce(0) { $0 + $1.count }
        guard considered <= budget else { return nil }
        budget -= considered
        nameWork += considered
        let candidates = seen.joined()
            .sorted { history.entries[writes[$0].entry].record.hash.lexicographicallyPrecedes(history.entries[writes[$1].entry].record.hash) }
        let entries = candidates.map { writes[$0].entry }
        let hashes = entries.map { history.entries[$0].record.hash }
        let concurrent = { (a: Int, b: Int) in !history.precedes(entries[a], entries[b]) && !history.precedes(entries[b], entries[a]) }
        var level: [[Int]] = candidates.indices.map { [$0] }
        while !level.isEmpty {
            var next: [[Int]] = []
            for set in level {
                for added in (set.last! + 1)..<candidates.count where set.allSatisfy({ concurrent($0, added) }) {
                    guard budget > 0 else { return nil }
                    budget -= 1
                    nameWork += 1
                    let grown = set + [added]
                    if SyncConflict.branchID("SealedVault sync conflict v1", id.bytes + grown.flatMap { hashes[$0] }) == branch {
                        let members = grown.map { candidates[$0] }
                        return withText(memoMerged(members, history: history), seenBy: members, history: history)
                    }
                    next.append(grown)
                }
            }
            level = next
        }
        return nil
    }

    /// The writes added before write `index` that are concurrent with it: other devices' writes
    /// its record had not seen (each device's writes are a chain, so those are a run of its chain).
    private func concurrentWrites(before index: Int, history: CausalHistory) -> [Int] {
        let entry = history.entries[writes[index].entry]
        var found: [Int] = []
        for (device, chain) in writesOfDevice where device != entry.device {
            let seen = count(of: chain, through: device < entry.clock.count ? entry.clock[device] : 0, history: history)
            found += chain[seen...].prefix { $0 < index }
        }
        return found
    }

    private func conflict(losing: Int, value: BlockValue, winning: BlockValue, history: CausalHistory) -> SyncConflict {
        // Named by the block and the losing write's record: the same on every device.
        let branch = SyncConflict.branchID("SealedVault sync conflict v1", id.bytes + history.entries[writes[losing].entry].record.hash)
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
    private mutating func textConflicts(history: CausalHistory) -> [HeldConflict] {
        let pairs = Set((text.overlappingEdits + text.touchingWords).map { [$0.0, $0.1] })
        return pairs.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { pair -> [HeldConflict] in
            let (lower, higher) = history.ranksBelow(Int(pair[0]), Int(pair[1])) ? (pair[0], pair[1]) : (pair[1], pair[0])
            let typed = [lower, higher].filter { text.typedWordScalars($0) }
            let losers = typed.isEmpty ? [lower] : typed
            return losers.compactMap { loser in textConflict(losing: Int(loser), winning: Int(loser == lower ? higher : lower), history: history) }
        }
    }

    /// The text conflict whose branch proposes record `losing`'s value of the block, with the text it saw.
    private mutating func textConflict(losing low: Int, winning high: Int, history: CausalHistory) -> HeldConflict? {
        guard let lowWrite = writeOfEntry[low], let highWrite = writeOfEntry[high] else { return nil }
        let losing = value(of: lowWrite, history: history), winning = value(of: highWrite, history: history)
        let branch = SyncConflict.branchID("SealedVault text conflict v1",
                                           id.bytes + history.entries[low].record.hash + history.entries[high].record.hash)
        return HeldConflict(conflict: SyncConflict(branch: branch, document: document, block: id, losing: losing, winning: winning), viewer: low)
    }
}
