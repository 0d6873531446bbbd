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
    /// The names of the conflicts this block's writes may make (`losingRecord(named:madeBefore:)`):
    /// worked out once, as writes and text conflicts arrive, not at each 0x03 looked up. Writes,
    /// overlaps and touches only grow, so a name once worked out never changes.
    private var conflictOfName: [BranchID: NamedConflict] = [:]
    /// The writes whose register names are in `conflictOfName`: the first `namedWrites`.
    private var namedWrites = 0
    /// The pairs of records (as `TextSequence` keeps them) whose text conflicts are named, and the
    /// counts of the text's overlaps and touches when they last were.
    private var namedTextPairs = Set<UInt64>()
    private var namedTextCounts = (overlaps: 0, touches: 0)
    /// Whether two records' letters touch in some holding of one record's past (`TextSequence.touch`),
    /// for the last record asked about: its hash, and the verdicts by pair (as `TextSequence` keeps them).
    private var touchesInPast: (carrier: [UInt8], verdicts: [UInt64: Bool])?

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
        checkNewPairs(history: history)
        return beatenBy.keys.sorted().map { low in
            let losing = value(of: low, history: history), winning = value(of: beatenBy[low]!, history: history)
            return HeldConflict(conflict: conflict(losing: low, value: losing, winning: winning, history: history), viewer: writes[low].entry)
        }
    }

    /// Checks the pairs a write added since the last check makes with those before it, keeping in
    /// `beatenBy` each losing write's highest-ranked rival.
    private mutating func checkNewPairs(history: CausalHistory) {
        guard pairsChecked < writes.count else { return }
        for index in pairsChecked..<writes.count {
            for other in concurrentWrites(before: index, history: history) {
                let (low, high) = history.ranksBelow(writes[other].entry, writes[index].entry) ? (other, index) : (index, other)
                if let known = beatenBy[low], history.ranksBelow(writes[high].entry, writes[known].entry) { continue }
                guard conflict(low, beatenBy: high, history: history) else { continue }
                beatenBy[low] = high
            }
        }
        pairsChecked = writes.count
    }

    /// Whether writes `low` and `high` (concurrent, `high` ranked above) make a register conflict:
    /// their values, each with the text its record saw, do not merge against their base.
    private mutating func conflict(_ low: Int, beatenBy high: Int, history: CausalHistory) -> Bool {
        let base = commonBase(of: [low], and: high, history: history)
        return mergedFields(base: base, writes[low].value, [low], high, history: history) == nil
    }

    // MARK: Conflict names (SECURITY.md §19.3, §19.4)

    /// The record whose side the conflict named `branch` loses, when that conflict is one a replica
    /// holding exactly the records in the past of record `carrier` (about to be admitted) makes of
    /// this block (SECURITY.md §19.4; attack review s8, N5): a register conflict of two writes in
    /// that past, or a text conflict of two records in that past whose edits overlap or whose
    /// letters touch in some holding of that past alone. Nil for any other
    /// name, whatever write or pair of writes it hashes: a 0x03 cannot make a branch of writes
    /// that merge. Looked up among names worked out once, as writes and text conflicts arrive (N6).
    mutating func losingRecord(named branch: BranchID, madeBefore carrier: CausalHistory.Entry, history: CausalHistory) -> Int? {
        nameNewConflicts(history: history)
        let inPast = { (entry: Int) in history.precedes(entry, prepared: carrier) }
        switch conflictOfName[branch] {
        case .register(let losing)?:
            guard inPast(writes[losing].entry), losesRegisterConflict(losing, within: carrier, history: history) else { return nil }
            return writes[losing].entry
        case .text(let losing, let winning)?:
            guard inPast(losing), inPast(winning) else { return nil }
            return text.overlaps.contains(Self.pair(losing, winning)) || touchInPast(losing, winning, of: carrier, history: history) ? losing : nil
        case nil:
            return nil
        }
    }

    /// The losing side the conflict named `branch` gives (`losingRecord(named:madeBefore:)`): that
    /// record's entry and its write's value with the text it saw, exactly what every device's own
    /// conflict of that name carries (`registerConflicts`, `textConflict`); nil when the records
    /// in `carrier`'s past make no conflict of that name here.
    mutating func losingValue(named branch: BranchID, madeBefore carrier: CausalHistory.Entry, history: CausalHistory) -> (entry: Int, value: BlockValue)? {
        guard let entry = losingRecord(named: branch, madeBefore: carrier, history: history), let write = writeOfEntry[entry] else { return nil }
        return (entry, value(of: write, history: history))
    }

    /// What a conflict's name gives among this block's writes (`conflictOfName`).
    enum NamedConflict: Sendable {
        /// A register conflict's name: its losing write, by index. Every write's is kept, and
        /// whether it loses is decided for the past asked about.
        case register(losing: Int)
        /// A text conflict's: its losing and winning records, by history entry.
        case text(losing: Int, winning: Int)
    }

    /// Adds to `conflictOfName` the register name of each write added since it was last brought up
    /// to date, and the names of the text conflicts of pairs whose edits overlap or whose letters
    /// touch (the text's overlaps and touches, which only grow as records arrive).
    private mutating func nameNewConflicts(history: CausalHistory) {
        if namedWrites < writes.count {
            for index in namedWrites..<writes.count {
                let name = SyncConflict.branchID("SealedVault sync conflict v1", id.bytes + history.entries[writes[index].entry].record.hash)
                remember(name, .register(losing: index))
            }
            namedWrites = writes.count
        }
        guard namedTextCounts != (text.overlaps.count, text.touches.count) else { return }
        namedTextCounts = (text.overlaps.count, text.touches.count)
        for pair in text.overlaps.union(text.touches) where namedTextPairs.insert(pair).inserted {
            for side in textConflictSides(Int32(bitPattern: UInt32(pair >> 32)), Int32(bitPattern: UInt32(pair & 0xFFFF_FFFF)), history: history)
            where writeOfEntry[side.losing] != nil && writeOfEntry[side.winning] != nil {
                remember(textConflictName(losing: side.losing, winning: side.winning, history: history), .text(losing: side.losing, winning: side.winning))
            }
        }
    }

    private mutating func remember(_ name: BranchID, _ conflict: NamedConflict) {
        nameWork += 1
        if conflictOfName[name] == nil { conflictOfName[name] = conflict }
    }

    /// Whether write `losing` loses a register conflict to a write in the past of record `carrier`:
    /// one ranked above it, concurrent with it, whose value does not merge with its own against
    /// their base (`registerConflicts`). A fact of two records, so asked of that past alone.
    private mutating func losesRegisterConflict(_ losing: Int, within carrier: CausalHistory.Entry, history: CausalHistory) -> Bool {
        checkNewPairs(history: history)
        // No write held beats it, or the highest-ranked one that does is in that past.
        guard let highest = beatenBy[losing] else { return false }
        if history.precedes(writes[highest].entry, prepared: carrier) { return true }
        // Else one the carrier had seen may: the other devices' writes it had seen and `losing`
        // had not, nor had seen it (each device's writes are a chain, so these are a run of it).
        let entry = history.entries[writes[losing].entry]
        for (device, chain) in writesOfDevice where device != entry.device {
            let unseen = count(of: chain, through: device < entry.clock.count ? entry.clock[device] : 0, history: history)
            let seenByCarrier = count(of: chain, through: device < carrier.clock.count ? carrier.clock[device] : 0, history: history)
            guard unseen < seenByCarrier else { continue }
            for other in chain[unseen..<seenByCarrier] where !history.precedes(writes[losing].entry, writes[other].entry)
                && history.ranksBelow(writes[losing].entry, writes[other].entry) && conflict(losing, beatenBy: other, history: history) {
                return true
            }
        }
        return false
    }

    /// Whether records `a` and `b` (both in the past of record `carrier`) have letters touching in
    /// some holding of that past alone (`TextSequence.touch`): the text's touches are judged over
    /// every record held, a 0x03 over its record's past, so that taking it never depends on what
    /// else arrived first. Remembered per pair for the record asked about.
    private mutating func touchInPast(_ a: Int, _ b: Int, of carrier: CausalHistory.Entry, history: CausalHistory) -> Bool {
        let pair = Self.pair(a, b)
        guard text.touches.contains(pair) else { return false }
        if touchesInPast?.carrier != carrier.record.hash { touchesInPast = (carrier.record.hash, [:]) }
        if let known = touchesInPast?.verdicts[pair] { return known }
        let verdict = text.touch(Int32(a), Int32(b), within: { history.precedes(Int($0), prepared: carrier) },
                                 precedes: { history.precedes(Int($0), Int($1)) })
        touchesInPast?.verdicts[pair] = verdict
        return verdict
    }

    /// Two records as `TextSequence` keeps a pair of them: the lower index first.
    private static func pair(_ a: Int, _ b: Int) -> UInt64 { UInt64(UInt32(min(a, b))) << 32 | UInt64(UInt32(max(a, b))) }

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
            textConflictSides(pair[0], pair[1], history: history).compactMap { textConflict(losing: $0.losing, winning: $0.winning, history: history) }
        }
    }

    /// The text conflicts of two concurrent records whose edits here overlap or whose letters touch,
    /// as (losing, winning) records: one for each that typed letters or digits here, losing its own
    /// side, else one losing the lower-ranked record's side (SECURITY.md §19.3).
    private func textConflictSides(_ a: Int32, _ b: Int32, history: CausalHistory) -> [(losing: Int, winning: Int)] {
        let (lower, higher) = history.ranksBelow(Int(a), Int(b)) ? (a, b) : (b, a)
        let typed = [lower, higher].filter { text.typedWordScalars($0) }
        return (typed.isEmpty ? [lower] : typed).map { loser in (Int(loser), Int(loser == lower ? higher : lower)) }
    }

    /// A text conflict's name: the block and both records, the losing side's first.
    private func textConflictName(losing: Int, winning: Int, history: CausalHistory) -> BranchID {
        SyncConflict.branchID("SealedVault text conflict v1", id.bytes + history.entries[losing].record.hash + history.entries[winning].record.hash)
    }

    /// The text conflict whose branch proposes record `losing`'s value of the block, with the text it saw.
    private mutating func textConflict(losing low: Int, winning high: Int, history: CausalHistory) -> HeldConflict? {
        guard let lowWrite = writeOfEntry[low], let highWrite = writeOfEntry[high] else { return nil }
        let losing = value(of: lowWrite, history: history), winning = value(of: highWrite, history: history)
        let branch = textConflictName(losing: low, winning: high, history: history)
        return HeldConflict(conflict: SyncConflict(branch: branch, document: document, block: id, losing: losing, winning: winning), viewer: low)
    }
}
