import Writing

/// A block's text as a sequence of characters each named by the record that typed it: a
/// replicated growable array (RGA, Roh et al. 2011). A character stays in the sequence when it
/// is deleted (marked with the records that deleted it), so a later insert can still be placed
/// after it. An insert goes right after its anchor, past the characters at that anchor typed by
/// records that rank above it (and everything typed after those), so concurrent inserts at one
/// point both survive, in the same order on every device, and a run of typing never interleaves
/// with another (SECURITY.md §19.3). The order depends only on which records are held, never on
/// the order they arrived in.
///
/// Records are named here by their index in the replica's `CausalHistory`.
struct TextSequence: Sendable {
    enum Anchor: Sendable, Equatable {
        /// Not the first character of an insert.
        case within
        case start
        case character(entry: Int32, offset: UInt32)
    }

    struct Item: Sendable {
        let entry: Int32
        let offset: UInt32
        let scalar: Unicode.Scalar
        /// What the first character of an insert was typed after.
        let anchor: Anchor
        /// The last character of an insert.
        let endsInsert: Bool
        /// The typing record's device (its index in the replica's history): a device's records
        /// form one chain, so two characters of one device never count as concurrent.
        let device: Int32
        /// A letter or digit (`TextDiff.isWordScalar`), worked out once.
        let isWord: Bool
        /// The records that deleted it (one, almost always).
        var deleters: [Int32] = []
    }

    private(set) var items: [Item] = []
    /// Pairs of concurrent records whose edits overlap (see `overlappingEdits`), kept as records
    /// arrive: a pair only ever involves the record arriving, so the set grows the same way
    /// whatever order concurrent records arrive in.
    private(set) var overlaps = Set<UInt64>()
    /// Pairs of concurrent records whose letters or digits touch in the text of the two records'
    /// pasts (see `touchingWords`), noted as the later of the two arrives: that text holds no other
    /// record, so the set grows the same way whatever order records arrive in.
    private(set) var touches = Set<UInt64>()
    /// The runs of letters or digits the record being applied typed here (its first offset and
    /// count), for `noteTouching` once all its edits are in.
    private var typedRuns: [(entry: Int32, first: UInt32, count: Int)] = []
    /// The records that typed a letter or digit here.
    private var wordTypers = Set<Int32>()
    /// Who typed right after a character (its inserts' first characters), and right before it (the
    /// inserts whose last character it followed as their record saw the text), by character key.
    private var typedAfter: [UInt64: [Int32]] = [:]
    private var typedBefore: [UInt64: [Int32]] = [:]
    /// Where each character is in `items`, by character key, as last found: a character only moves
    /// right (an insert before it shifts it), so a stale place is found by looking on from it, and
    /// a lookup costs the shift since the last one rather than a scan of every character typed.
    private var places: [UInt64: Int32] = [:]
    /// Per device (by its index in the replica's history), its records that typed here in counter
    /// order, each with the characters the device typed here up to it: the characters in a record's
    /// past are then counted per device by a binary search (`characters(seenBy:)`).
    private var typedByDevice: [Int32: [(entry: Int32, total: Int)]] = [:]

    /// The most characters a block's text may hold in a record's past, deleted ones included, with
    /// those the record types there (SECURITY.md §19.2): four times the most a block shows, far
    /// above any honest block's typing, and a bound on the memory and work one block can cost.
    static let maximumCharacters = 4 * WritingLimits.maximumBlockBytes
    /// The most text work one record may cause (§19.2): over its 0x04 operations, each one's edits
    /// times the characters of its block in the record's past plus those it types there. Each edit
    /// costs at most a pass over the block, so this bounds a record's cost to a fraction of a
    /// second; an honest diff past it is sent as one replacement (`LocalChanges`).
    static let maximumWork = 1 << 25

    static func key(_ entry: Int32, _ offset: UInt32) -> UInt64 { UInt64(UInt32(bitPattern: entry)) << 32 | UInt64(offset) }

    var isEmpty: Bool { items.isEmpty }

    /// The text as it is now: every character no record deleted. (Loops written out: this runs
    /// once per record over the whole block, and a long-form block holds every character typed.)
    var text: String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(items.count)
        for index in items.indices where items[index].deleters.isEmpty { Self.append(items[index].scalar, to: &utf8) }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The characters shown now: their scalars, and where each is in `items` (for a device's next edit).
    var visible: (scalars: [Unicode.Scalar], indices: [Int32]) {
        var scalars: [Unicode.Scalar] = [], indices: [Int32] = []
        scalars.reserveCapacity(items.count)
        indices.reserveCapacity(items.count)
        for index in items.indices where items[index].deleters.isEmpty {
            scalars.append(items[index].scalar)
            indices.append(Int32(index))
        }
        return (scalars, indices)
    }

    /// The text as a device saw it when it had exactly the records `inPast` accepts.
    func text(seenBy inPast: (Int32) -> Bool) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(items.count)
        for index in items.indices where inPast(items[index].entry) && !items[index].deleters.contains(where: inPast) {
            Self.append(items[index].scalar, to: &utf8)
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    static func append(_ scalar: Unicode.Scalar, to utf8: inout [UInt8]) {
        if scalar.value < 0x80 { utf8.append(UInt8(scalar.value)) } else { utf8.append(contentsOf: UTF8.encode(scalar)!) }
    }

    /// Whether the characters `inPast` saw (nil: every record held) spell `text`, without building a string.
    func spells(_ text: String, seenBy inPast: ((Int32) -> Bool)?) -> Bool {
        var expected = text.unicodeScalars.makeIterator()
        for item in items {
            if let inPast {
                guard inPast(item.entry), !item.deleters.contains(where: inPast) else { continue }
            } else if !item.deleters.isEmpty {
                continue
            }
            guard expected.next() == item.scalar else { return false }
        }
        return expected.next() == nil
    }

    /// Takes out everything record `entry` did (a record refused after its edits were applied):
    /// its characters, its deletion marks, and the overlaps and neighbours noted for it.
    mutating func undo(_ entry: Int32) {
        items.removeAll { $0.entry == entry }
        places = Dictionary(uniqueKeysWithValues: items.indices.map { (Self.key(items[$0].entry, items[$0].offset), Int32($0)) })
        for device in typedByDevice.keys { typedByDevice[device]?.removeAll { $0.entry == entry } }
        for index in items.indices where items[index].deleters.contains(entry) { items[index].deleters.removeAll { $0 == entry } }
        overlaps = overlaps.filter { Int32(bitPattern: UInt32($0 >> 32)) != entry && Int32(bitPattern: UInt32($0 & 0xFFFF_FFFF)) != entry }
        touches = touches.filter { Int32(bitPattern: UInt32($0 >> 32)) != entry && Int32(bitPattern: UInt32($0 & 0xFFFF_FFFF)) != entry }
        typedRuns.removeAll { $0.entry == entry }
        wordTypers.remove(entry)
        typedAfter = typedAfter.compactMapValues { list in list.filter { $0 != entry }.nilIfEmpty }
        typedBefore = typedBefore.compactMapValues { list in list.filter { $0 != entry }.nilIfEmpty }
        for key in typedAfter.keys where Int32(bitPattern: UInt32(key >> 32)) == entry { typedAfter[key] = nil }
        for key in typedBefore.keys where Int32(bitPattern: UInt32(key >> 32)) == entry { typedBefore[key] = nil }
    }

    /// (Not generic, so that a caller in another module runs the optimised loop.)
    static func string(_ scalars: [Unicode.Scalar]) -> String { string(scalars[...]) }

    static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(scalars.underestimatedCount)
        for scalar in scalars { append(scalar, to: &utf8) }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Where character (`entry`, `offset`) is in `items`, or nil when it is not in this text.
    mutating func index(of entry: Int32, _ offset: UInt32) -> Int? {
        let key = Self.key(entry, offset)
        guard let known = places[key] else { return nil }
        var index = Int(known)
        while index < items.count, items[index].entry != entry || items[index].offset != offset { index += 1 }
        guard index < items.count else { return nil }
        if index != Int(known) { places[key] = Int32(index) }
        return index
    }

    /// How many characters (deleted ones included) the records `inPast` accepts typed here. A
    /// device's records form one chain, so those in a record's past are a prefix of its chain.
    func characters(seenBy inPast: (Int32) -> Bool) -> Int {
        var total = 0
        for chain in typedByDevice.values {
            var low = 0, high = chain.count
            while low < high {
                let middle = (low + high) / 2
                if inPast(chain[middle].entry) { low = middle + 1 } else { high = middle }
            }
            if low > 0 { total += chain[low - 1].total }
        }
        return total
    }

    /// Whether the record whose past `inPast` accepts saw the character at `index`: typed in its
    /// past and deleted by none of it (itself included).
    private func isSeen(_ index: Int, inPast: (Int32) -> Bool) -> Bool {
        inPast(items[index].entry) && !items[index].deleters.contains(where: inPast)
    }

    // MARK: Edits

    /// Places `scalars`, typed by record `entry` as its characters `firstOffset...`, after the
    /// character `anchor` (nil: the block's start). The anchor must be a character of this text
    /// in the record's past (`inPast`, which accepts the record itself). `ranksAbove(e)` says
    /// whether record `e` ranks above `entry` (SECURITY.md §19.3's rank).
    mutating func insert(_ scalars: [Unicode.Scalar], entry: Int32, device: Int32, firstOffset: UInt32, after anchor: (entry: Int32, offset: UInt32)?,
                         inPast: (Int32) -> Bool, ranksAbove: (Int32) -> Bool) throws(SyncError) {
        var position = 0, anchorIndex: Int? = nil
        if let anchor {
            guard inPast(anchor.entry), let index = index(of: anchor.entry, anchor.offset) else {
                throw SyncError(.causalityViolation, "a text insert after a character its record has not seen in that block")
            }
            position = index + 1
            anchorIndex = index
        }
        // Past the characters typed later at this point by higher-ranked records: a record's
        // characters rank above their anchor's, so everything typed after those is skipped too.
        while position < items.count, items[position].entry != entry, ranksAbove(items[position].entry) { position += 1 }
        let first: Anchor = anchor.map { .character(entry: $0.entry, offset: $0.offset) } ?? .start
        let new = scalars.enumerated().map { index, scalar in
            Item(entry: entry, offset: firstOffset + UInt32(index), scalar: scalar, anchor: index == 0 ? first : .within,
                 endsInsert: index == scalars.count - 1, device: device, isWord: TextDiff.isWordScalar(scalar))
        }
        items.insert(contentsOf: new, at: position)
        if new.contains(where: \.isWord) {
            typedRuns.append((entry, firstOffset, new.count))
            wordTypers.insert(entry)
        }
        for index in new.indices { places[Self.key(entry, firstOffset + UInt32(index))] = Int32(position + index) }
        // In place: a device's chain here grows by one per record, and is not copied for each insert.
        let last = typedByDevice[device]?.last
        if last?.entry == entry {
            typedByDevice[device]![typedByDevice[device]!.count - 1].total += new.count
        } else {
            typedByDevice[device, default: []].append((entry, (last?.total ?? 0) + new.count))
        }
        // Overlaps with deletes already held: of the anchor, or of the character the insert was typed before.
        if let anchor, let index = anchorIndex {
            typedAfter[Self.key(anchor.entry, anchor.offset), default: []].append(entry)
            for deleter in items[index].deleters where !inPast(deleter) { note(deleter, entry) }
        }
        if let next = nextSeen(after: position + new.count - 1, inPast: inPast) {
            typedBefore[Self.key(items[next].entry, items[next].offset), default: []].append(entry)
            for deleter in items[next].deleters where !inPast(deleter) { note(deleter, entry) }
        }
    }

    /// The first character after `index` the record saw (typed in its past, not deleted there).
    private func nextSeen(after index: Int, inPast: (Int32) -> Bool) -> Int? {
        var cursor = index + 1
        while cursor < items.count {
            if inPast(items[cursor].entry), !items[cursor].deleters.contains(where: inPast) { return cursor }
            cursor += 1
        }
        return nil
    }

    private mutating func note(_ a: Int32, _ b: Int32) {
        guard a != b else { return }
        overlaps.insert(Self.pair(a, b))
    }

    /// Two records as one key, the lower index first.
    private static func pair(_ a: Int32, _ b: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: min(a, b))) << 32 | UInt64(UInt32(bitPattern: max(a, b)))
    }

    /// Marks deleted by record `deleter` the characters from `first` through `last` (named by
    /// record and offset) that it saw: typed in its past and not deleted there. Both ends must be
    /// characters of this text it saw (not deleted in its past, nor by itself), `first` not after
    /// `last`, and no character between may be one it deleted already: a record's deletes do not
    /// overlap, so together they pass over each character once (SECURITY.md §19.2).
    mutating func delete(from first: (entry: Int32, offset: UInt32), through last: (entry: Int32, offset: UInt32), by deleter: Int32,
                         inPast: (Int32) -> Bool) throws(SyncError) {
        guard inPast(first.entry), inPast(last.entry), let start = index(of: first.entry, first.offset),
              let end = index(of: last.entry, last.offset), start <= end else {
            throw SyncError(.causalityViolation, "a text delete of characters its record has not seen in that block, or in the wrong order")
        }
        guard isSeen(start, inPast: inPast), isSeen(end, inPast: inPast) else {
            throw SyncError(.causalityViolation, "a text delete whose first or last character was deleted already in its record's past or by the record")
        }
        for index in start...end where inPast(items[index].entry) {
            guard !items[index].deleters.contains(deleter) else {
                throw SyncByteReader.malformed("two text deletes of one record overlap")
            }
            guard !items[index].deleters.contains(where: inPast) else { continue }
            // Overlaps with what is held: another record's delete of it, an insert typed right after or before it.
            let key = Self.key(items[index].entry, items[index].offset)
            for other in items[index].deleters + typedAfter[key, default: []] + typedBefore[key, default: []] where !inPast(other) {
                note(other, deleter)
            }
            items[index].deleters.append(deleter)
        }
    }

    // MARK: Overlapping edits

    /// Whether record `entry` typed a letter or digit in this text (a text conflict's branch holds
    /// the side that typed, SECURITY.md §19.3).
    func typedWordScalars(_ entry: Int32) -> Bool {
        wordTypers.contains(entry)
    }

    /// The pairs of concurrent records whose letters or digits touch (SECURITY.md §19.3): in the
    /// text of exactly the records in the past of either (both included), a letter or digit one typed
    /// is next to one the other typed: two words run together that neither device wrote so. That
    /// text holds no record but those, so the pair is a fact of the two records, as an overlap is:
    /// what arrives later (a record parting the words again) never ends it. Each pair is (lower
    /// index, higher).
    var touchingWords: [(Int32, Int32)] {
        touches.sorted().map { (Int32(bitPattern: UInt32($0 >> 32)), Int32(bitPattern: UInt32($0 & 0xFFFF_FFFF))) }
    }

    /// Notes, once every edit of record `entry` here is applied, each record it touches
    /// (`touchingWords`): from each letter or digit it typed and shows, the nearest characters either
    /// side that the text of the two records' pasts would show. `inPast` says whether a record is in
    /// `entry`'s past (or is it); `inPastOf(x, z)` whether record x is in held record z's past. Every
    /// record held is in `entry`'s past or concurrent with it (it arrives after its past).
    mutating func noteTouching(by entry: Int32, inPast: (Int32) -> Bool, inPastOf: (Int32, Int32) -> Bool) {
        let runs = typedRuns.filter { $0.entry == entry }
        typedRuns.removeAll()
        for run in runs {
            for offset in run.first..<run.first + UInt32(run.count) {
                // Only the record itself can have deleted its own characters yet.
                guard let index = index(of: entry, offset), items[index].isWord, items[index].deleters.isEmpty else { continue }
                for step in [-1, 1] {
                    for other in recordsTouching(from: index, step: step, by: entry, inPast: inPast, inPastOf: inPastOf) {
                        touches.insert(Self.pair(entry, other))
                    }
                }
            }
        }
    }

    /// The concurrent records with a letter or digit that is, in the text of its past and `entry`'s,
    /// the nearest shown character to `start` (a letter or digit `entry` typed) in direction `step`.
    /// A character is shown in that text when typed by a record in either past and deleted by none.
    /// The walk stops at a character every such text shows (typed in `entry`'s past, deleted by no
    /// record held): no record's letter beyond it can be next to `start`.
    private func recordsTouching(from start: Int, step: Int, by entry: Int32, inPast: (Int32) -> Bool,
                                 inPastOf: (Int32, Int32) -> Bool) -> [Int32] {
        var found: [Int32] = [], decided = Set<Int32>(), between: [Int] = []
        var cursor = start + step
        while cursor >= 0, cursor < items.count {
            let item = items[cursor], here = cursor
            cursor += step
            // Deleted in `entry`'s past (or by it): no such text shows it.
            if item.deleters.contains(where: inPast) { continue }
            if inPast(item.entry) {
                if item.deleters.isEmpty { break }
                between.append(here)  // shown unless the other's past deleted it
                continue
            }
            let other = item.entry  // a concurrent record's character
            // Deleted in its own record's past: no text that holds it shows it.
            if item.deleters.contains(where: { inPastOf($0, other) }) { continue }
            // The first character of `other` its text shows decides the pair: touching if it is a
            // letter or digit and nothing between is shown there.
            if decided.insert(other).inserted, item.isWord,
               !between.contains(where: { isShown($0, inTextOf: other, inPast: inPast, inPastOf: inPastOf) }) {
                found.append(other)
            }
            between.append(here)
        }
        return found
    }

    /// Whether the text of record `other`'s past and the applied record's (`inPast`) shows
    /// character `index`: typed in either past, deleted in neither.
    private func isShown(_ index: Int, inTextOf other: Int32, inPast: (Int32) -> Bool, inPastOf: (Int32, Int32) -> Bool) -> Bool {
        let item = items[index]
        return (inPast(item.entry) || inPastOf(item.entry, other)) && !item.deleters.contains { inPast($0) || inPastOf($0, other) }
    }

    /// The pairs of concurrent records whose letters or digits touch in the text shown, whether or
    /// not they touch in their pair's text (`touchingWords`): words run together by a third
    /// record's delete, which the pair's text does not hold. Unlike `touchingWords` this is a fact of
    /// the text as it is, so it may end when a later record parts them (SECURITY.md §19.3: the one
    /// order-dependence left). Each pair is (lower index, higher).
    func gluedWords(precedes: (Int32, Int32) -> Bool) -> [(Int32, Int32)] {
        var pairs = Set<UInt64>()
        var previous = -1
        for index in items.indices where items[index].deleters.isEmpty {
            defer { previous = index }
            guard previous >= 0, items[index].isWord, items[previous].isWord, items[previous].device != items[index].device else { continue }
            let (left, right) = (items[previous].entry, items[index].entry)
            guard !precedes(left, right), !precedes(right, left) else { continue }
            pairs.insert(UInt64(UInt32(bitPattern: min(left, right))) << 32 | UInt64(UInt32(bitPattern: max(left, right))))
        }
        return pairs.sorted().map { (Int32(bitPattern: UInt32($0 >> 32)), Int32(bitPattern: UInt32($0 & 0xFFFF_FFFF))) }
    }

    /// The pairs of concurrent records whose edits of this text overlap: both deleted one
    /// character, or one typed right after or right before (as it saw the text) a character the
    /// other deleted. Such edits can splice words together, so they are conflicts (SECURITY.md
    /// §19.3). Each pair is (lower index, higher).
    var overlappingEdits: [(Int32, Int32)] {
        overlaps.sorted().map { (Int32(bitPattern: UInt32($0 >> 32)), Int32(bitPattern: UInt32($0 & 0xFFFF_FFFF))) }
    }
}

private extension Array {
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}
