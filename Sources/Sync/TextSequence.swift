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
    /// Pairs of concurrent records whose letters or digits touch in the text of some set of the
    /// records held that a replica may have held (see `touchingWords`), noted as the record that
    /// makes them so arrives: the set grows the same way whatever order records arrive in.
    private(set) var touches = Set<UInt64>()
    /// The steps spent judging touching letters (`noteTouching`, `canTouch`), counted for the
    /// tests that bound them (review 17 s8, F22): work done, not time.
    private(set) var touchWork = 0
    /// The steps spent finding characters by name (`index(of:)`), counted for the tests that bound
    /// a record's cost (review 17 s9, N-s9-8): work done, not time.
    private(set) var lookupWork = 0
    /// The first and last characters of each delete of the record being applied, for
    /// `noteTouching` once all its edits are in.
    private var deletedRuns: [(entry: Int32, first: Int32, firstOffset: UInt32, last: Int32, lastOffset: UInt32)] = []
    /// The records that typed a letter or digit here.
    private var wordTypers = Set<Int32>()
    /// Who typed right after a character (its inserts' first characters), and right before it (the
    /// inserts whose last character it followed as their record saw the text), by character key.
    private var typedAfter: [UInt64: [Int32]] = [:]
    private var typedBefore: [UInt64: [Int32]] = [:]
    /// Where each character is in `items`, by character key, as last found: a character only moves
    /// right (an insert before it shifts it), so a stale place is found by looking on from it, and
    /// a lookup costs the shift since the last one, at most a pass over the block: a record's edits
    /// look up a few characters each (§19.2 bounds edits times the block's characters), never
    /// each character it typed (`noteTouching`).
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
        deletedRuns.removeAll { $0.entry == entry }
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
        lookupWork += index - Int(known) + 1
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
        if new.contains(where: \.isWord) { wordTypers.insert(entry) }
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
        deletedRuns.append((deleter, first.entry, first.offset, last.entry, last.offset))
    }

    // MARK: Overlapping edits

    /// Whether record `entry` typed a letter or digit in this text (a text conflict's branch holds
    /// the side that typed, SECURITY.md §19.3).
    func typedWordScalars(_ entry: Int32) -> Bool {
        wordTypers.contains(entry)
    }

    /// The pairs of concurrent records whose letters or digits touch (SECURITY.md §19.3): a letter
    /// or digit one typed is next to one the other typed in the text of some **holding**, a set of
    /// the records held that holds every member's past and both records: what a replica may have
    /// shown at some time, whatever order the records came in. The pair's text (exactly the two
    /// records' pasts) and the text shown (every record held) are two such sets. More records only
    /// add holdings, so a pair once touching touches for good: the pairs are a function of the
    /// records held, growing as they arrive, never of their order. Each pair is (lower index, higher).
    var touchingWords: [(Int32, Int32)] {
        touches.sorted().map { (Int32(bitPattern: UInt32($0 >> 32)), Int32(bitPattern: UInt32($0 & 0xFFFF_FFFF))) }
    }

    /// Notes, once every edit of record `entry` here is applied, the pairs it makes touch
    /// (`touchingWords`). A holding where two letters touch that was not one before holds `entry`
    /// (the newest record), and the same holding without `entry` still shows them touching unless
    /// `entry` typed one of them or deleted a character between them. So the new pairs are around
    /// `entry`'s letters and around what it deleted, within the characters every holding with
    /// `entry` shows (typed in its past and deleted by no record held): those spans are swept once
    /// each (`sweepForTouching`), in steps about their characters, never a step per pair of letters
    /// in them (review 17 s8, F22). `precedes(x, y)`: record x is in record y's past (or is y), for
    /// any record held and `entry`.
    mutating func noteTouching(by entry: Int32, precedes: (Int32, Int32) -> Bool) {
        let deleted = deletedRuns.filter { $0.entry == entry }
        deletedRuns.removeAll()
        var edited: [ClosedRange<Int>] = []
        // Its letters found in one pass over the block, not each by name: a later insert of the
        // record placed before its earlier ones (two at one anchor) leaves their places stale by its
        // length, and a lookup each would cost that length per letter (review 17 s9, N-s9-8).
        if wordTypers.contains(entry) {
            for index in items.indices where items[index].entry == entry && items[index].isWord && items[index].deleters.isEmpty {
                edited.append(index...index)
            }
            touchWork += items.count
        }
        for run in deleted {
            guard let start = index(of: run.first, run.firstOffset), let end = index(of: run.last, run.lastOffset) else { continue }
            edited.append(start...end)
        }
        for span in spans(around: edited, by: entry, precedes: precedes) { sweepForTouching(span, by: entry, precedes: precedes) }
    }

    /// The ranges `edited` widened on either side over the characters some holding with record
    /// `entry` may hide, up to and including the first one every such holding shows (typed in
    /// `entry`'s past and deleted by no record held), or the text's end; overlapping ones as one.
    /// Two spans share at most such a character, which hides anything on one side from the other
    /// in every holding with `entry`. Each character is passed over about once.
    private mutating func spans(around edited: [ClosedRange<Int>], by entry: Int32, precedes: (Int32, Int32) -> Bool) -> [ClosedRange<Int>] {
        func isShownInEvery(_ index: Int) -> Bool { items[index].deleters.isEmpty && precedes(items[index].entry, entry) }
        var spans: [ClosedRange<Int>] = [], steps = 0
        func widenedRight(from end: Int) -> Int {
            var high = end + 1
            while high < items.count, !isShownInEvery(high) { high += 1; steps += 1 }
            return min(high, items.count - 1)
        }
        for range in edited.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = spans.last, range.lowerBound <= last.upperBound {
                // Reaching the last span's end (a character every holding with `entry` shows, such as
                // `entry`'s own letter the last widening stopped at): widened on from the range's end.
                if range.upperBound >= last.upperBound { spans[spans.count - 1] = last.lowerBound...widenedRight(from: range.upperBound) }
                continue
            }
            var low = range.lowerBound - 1
            while low >= 0, !isShownInEvery(low) { low -= 1; steps += 1 }
            spans.append(max(low, 0)...widenedRight(from: range.upperBound))
        }
        touchWork += steps + edited.count
        return spans
    }

    /// Notes the pairs of concurrent records whose letters in `span` touch in some holding with
    /// record `entry` where they did not without it (one of the letters is `entry`'s, or `entry`
    /// deleted a character between them), walking the span once, left to right.
    ///
    /// A letter can touch a letter further right only while no character between is shown in every
    /// holding that holds its record (one typed in that record's past, or by it, and deleted by no
    /// record held): it is kept *open* (per device, in text order) until such a character comes.
    /// Likewise a letter can touch one to its left only past the last character shown in every
    /// holding that holds its own record (`ShownCharacters`). So each letter is judged (`canTouch`)
    /// only with the open letters of other devices after that character, of records not yet known
    /// to touch its own: in an honest text a device's own letters close each other, and a long run
    /// of one device's typing costs a step a letter.
    private mutating func sweepForTouching(_ span: ClosedRange<Int>, by entry: Int32, precedes: (Int32, Int32) -> Bool) {
        // Per device met (in the order met, by `slots`), its open letters.
        var open: [OpenLetters] = [], slots: [Int32: Int] = [:]
        var shown = ShownCharacters()
        var lastDeletedByEntry = -1
        var steps = 0
        for index in span {
            steps += 1
            let item = items[index]
            // Deleted by `entry` or a record in its past: hidden in every holding with `entry`.
            let mayShow = item.isWord && !item.deleters.contains { precedes($0, entry) }
            if mayShow {
                let limit = shown.lastInPast(of: item.entry, precedes: precedes, steps: &steps)
                for letters in open where letters.device != item.device {
                    for left in letters.positions.reversed() {
                        guard left > limit else { break }
                        steps += 1
                        guard item.entry == entry || items[left].entry == entry || left < lastDeletedByEntry else { continue }
                        noteIfTouching(left, index, precedes: precedes, steps: &steps)
                    }
                }
            }
            if item.deleters.contains(entry) { lastDeletedByEntry = index }
            if item.deleters.isEmpty {
                // Shown in every holding that holds its record: the open letters of records after it are closed.
                for slot in open.indices { open[slot].close(after: item.entry, precedes: precedes, steps: &steps) }
                shown.add(index, record: item.entry, device: item.device, precedes: precedes)
            }
            if mayShow {
                if slots[item.device] == nil {
                    slots[item.device] = open.count
                    open.append(OpenLetters(device: item.device))
                }
                open[slots[item.device]!].add(index, record: item.entry, precedes: precedes)
            }
        }
        touchWork += steps
    }

    /// Notes the records of the characters at `left` and `right` (left first) as touching when they
    /// are two concurrent records' letters or digits some holding shows side by side (`canTouch`).
    private mutating func noteIfTouching(_ left: Int, _ right: Int, precedes: (Int32, Int32) -> Bool, steps: inout Int) {
        let p = items[left].entry, q = items[right].entry
        guard items[left].isWord, items[right].isWord, p != q, !precedes(p, q), !precedes(q, p) else { return }
        let key = Self.pair(p, q)
        guard !touches.contains(key), canTouch(left, right, within: { _ in true }, precedes: precedes, steps: &steps) else { return }
        touches.insert(key)
    }

    /// Whether some holding shows the letters at `left` and `right` (of concurrent records p and q)
    /// with nothing shown between. A holding holds p's and q's pasts; it must leave out every record
    /// that deleted either letter, and everything after one; and each character between must be
    /// left out (its record not held) or deleted by a record held. The records that must be left
    /// out are found by growing that set until nothing more has to go (leaving a record out can
    /// take away the only delete of a character between, whose record must then go too): the
    /// holding of every other record is then the largest there is, and it shows the two letters
    /// together exactly when it still holds both pasts (every holding leaves out at least those
    /// records, so if it does not, none does).
    /// Only records `inScope` accepts (a set holding each member's past) are held: the others are
    /// as if never received. `steps` counts the characters looked at.
    private func canTouch(_ left: Int, _ right: Int, within inScope: (Int32) -> Bool, precedes: (Int32, Int32) -> Bool, steps: inout Int) -> Bool {
        let p = items[left].entry, q = items[right].entry
        func inPasts(_ record: Int32) -> Bool { precedes(record, p) || precedes(record, q) }
        var leftOut = LeftOut()
        for deleter in items[left].deleters + items[right].deleters where inScope(deleter) { leftOut.add(deleter, precedes) }
        guard !leftOut.contains(p, precedes), !leftOut.contains(q, precedes) else { return false }
        var undecided: [Int] = []
        for index in (left + 1)..<right where inScope(items[index].entry) {
            steps += 1
            let item = items[index]
            // Deleted in the two pasts: hidden in every holding. Typed there and deleted by none: shown in every one.
            if item.deleters.contains(where: inPasts) { continue }
            if !item.deleters.contains(where: inScope), inPasts(item.entry) { return false }
            undecided.append(index)
        }
        var grew = true
        while grew {
            grew = false
            steps += undecided.count
            undecided = undecided.filter { index in
                let item = items[index]
                if leftOut.contains(item.entry, precedes) { return false }  // its record is left out, for good
                if item.deleters.contains(where: { inScope($0) && !leftOut.contains($0, precedes) }) { return true }  // a delete of it may be held
                leftOut.add(item.entry, precedes)
                grew = true
                return false
            }
            // A record of either past must be left out: the two letters are never shown together.
            if grew, leftOut.contains(p, precedes) || leftOut.contains(q, precedes) { return false }
        }
        return true
    }

    /// Whether concurrent records p and q have letters or digits side by side in some holding made
    /// of the records `inScope` accepts alone (a set holding each member's past, such as a record's
    /// past, with p and q): what the records of that set make of the pair, whatever else is held.
    /// (`touchingWords` is judged over every record held; a 0x03 a record carries is judged in its
    /// past alone, so that taking it never depends on what else arrived first.)
    func touch(_ p: Int32, _ q: Int32, within inScope: (Int32) -> Bool, precedes: (Int32, Int32) -> Bool) -> Bool {
        var steps = 0
        for left in items.indices where items[left].isWord && (items[left].entry == p || items[left].entry == q) {
            let other = items[left].entry == p ? q : p
            for right in (left + 1)..<items.count where inScope(items[right].entry) {
                let item = items[right]
                if item.isWord, item.entry == other, canTouch(left, right, within: inScope, precedes: precedes, steps: &steps) { return true }
                // Typed in the pasts and deleted by no record in scope: shown in every such holding.
                if precedes(item.entry, p) || precedes(item.entry, q), !item.deleters.contains(where: inScope) { break }
            }
        }
        return false
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

/// The records a holding must leave out (`TextSequence.canTouch`), kept as the earliest ones: a
/// record is left out when one of those is in its past (or is it). Each device's records form one
/// chain, so at most one per device is kept.
private struct LeftOut {
    private var earliest: [Int32] = []

    func contains(_ record: Int32, _ precedes: (Int32, Int32) -> Bool) -> Bool { earliest.contains { precedes($0, record) } }

    mutating func add(_ record: Int32, _ precedes: (Int32, Int32) -> Bool) {
        guard !contains(record, precedes) else { return }
        earliest.removeAll { precedes(record, $0) }
        earliest.append(record)
    }
}

/// The letters of one device met in a sweep (`TextSequence.sweepForTouching`) that may still touch
/// a letter further on, in text order. A character shown in every holding that holds a letter's
/// record closes it: one typed in that record's past, so also every later record's of the device.
/// Letters no record deleted close those of their own and later records as they come, so those
/// left are of records in counter order, and closing takes them off the end; a deleted letter out
/// of that order (rare: it closes nothing) makes the next closing look at every one.
private struct OpenLetters {
    let device: Int32
    private(set) var positions: [Int] = []
    private var records: [Int32] = []
    private var inRecordOrder = true

    init(device: Int32) { self.device = device }

    mutating func add(_ position: Int, record: Int32, precedes: (Int32, Int32) -> Bool) {
        if let last = records.last, last != record, precedes(record, last) { inRecordOrder = false }
        positions.append(position)
        records.append(record)
    }

    /// Closes the letters whose record has `record` in its past (or is it).
    mutating func close(after record: Int32, precedes: (Int32, Int32) -> Bool, steps: inout Int) {
        if inRecordOrder {
            while let last = records.last, precedes(record, last) {
                steps += 1
                records.removeLast()
                positions.removeLast()
            }
            return
        }
        steps += records.count
        let kept = records.indices.filter { !precedes(record, records[$0]) }
        positions = kept.map { positions[$0] }
        records = kept.map { records[$0] }
        inRecordOrder = zip(records, records.dropFirst()).allSatisfy { $0 == $1 || !precedes($1, $0) }
    }
}

/// Per device, where the characters no record held deleted were met in a sweep, each the last of
/// its record or an earlier one of the device: the last such character before a letter whose
/// record's past holds it is shown in every holding holding that record, and hides from the letter
/// everything before it.
private struct ShownCharacters {
    private var byDevice: [Int32: [(position: Int, record: Int32)]] = [:]

    mutating func add(_ position: Int, record: Int32, device: Int32, precedes: (Int32, Int32) -> Bool) {
        // In place: the list is not copied for each character.
        while let last = byDevice[device]?.last, precedes(record, last.record) { byDevice[device]!.removeLast() }
        byDevice[device, default: []].append((position, record))
    }

    /// The position of the last character added that is in `record`'s past (or its own), or -1.
    func lastInPast(of record: Int32, precedes: (Int32, Int32) -> Bool, steps: inout Int) -> Int {
        var found = -1
        for list in byDevice.values {
            // The records rise along a list, so those in `record`'s past are a prefix of it.
            var low = 0, high = list.count
            while low < high {
                steps += 1
                let middle = (low + high) / 2
                if precedes(list[middle].record, record) { low = middle + 1 } else { high = middle }
            }
            if low > 0 { found = max(found, list[low - 1].position) }
        }
        return found
    }
}
