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
/// Which characters a write's text holds is its *view* (SECURITY.md §19.3): those typed by a
/// record of its lineage (itself, its text parent, that write's text parent, ...) and deleted by
/// none of them. One view is kept materialised, the *cursor* (a bit per character): a write whose
/// text parent is the cursor's write moves it by its own edits alone, so linear typing costs what
/// its edits touch; any other view is worked out in one pass (`show(view:lineage:)`).
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
        /// The typing record's device (its index in the replica's history).
        let device: Int32
        /// The records that deleted it (one, almost always).
        var deleters: [Int32] = []
        /// In the cursor's view.
        var shown = false
    }

    /// The cursor's value when no view is materialised (after `undo`): the next move works it out.
    static let noCursor: Int32 = -2
    /// The cursor's value for the empty view (no write: a block its record had not seen).
    static let emptyView: Int32 = -1

    private(set) var items: [Item] = []
    /// The record (history entry) whose view the `shown` bits are, or `emptyView`/`noCursor`.
    var cursor: Int32 = TextSequence.emptyView
    /// The steps spent finding characters by name (`index(of:)`), counted for the tests that bound
    /// a record's cost (review 17 s9, N-s9-8): work done, not time.
    private(set) var lookupWork = 0
    /// Where each character is in `items`, by character key, as last found: a character only moves
    /// right (an insert before it shifts it), so a stale place is found by looking on from it, and
    /// a lookup costs the shift since the last one, at most a pass over the block.
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

    /// The cursor's view as text. (Loops written out: this runs once per record over the whole
    /// block, and a long-form block holds every character typed.)
    var text: String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(items.count)
        for index in items.indices where items[index].shown { Self.append(items[index].scalar, to: &utf8) }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The cursor's view: its scalars, and where each is in `items` (for a device's next edit).
    var visible: (scalars: [Unicode.Scalar], indices: [Int32]) {
        var scalars: [Unicode.Scalar] = [], indices: [Int32] = []
        scalars.reserveCapacity(items.count)
        indices.reserveCapacity(items.count)
        for index in items.indices where items[index].shown {
            scalars.append(items[index].scalar)
            indices.append(Int32(index))
        }
        return (scalars, indices)
    }

    /// Whether the character at `index` is in the view of the write whose lineage (its record and
    /// its text ancestors' records) `lineage` accepts.
    private func isIn(_ index: Int, lineage: (Int32) -> Bool) -> Bool {
        lineage(items[index].entry) && !items[index].deleters.contains(where: lineage)
    }

    /// The view of a write whose lineage `lineage` accepts.
    func text(inLineage lineage: (Int32) -> Bool) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(items.count)
        for index in items.indices where isIn(index, lineage: lineage) { Self.append(items[index].scalar, to: &utf8) }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// That view's scalars and their places (`visible`), without moving the cursor.
    func visible(inLineage lineage: (Int32) -> Bool) -> (scalars: [Unicode.Scalar], indices: [Int32]) {
        var scalars: [Unicode.Scalar] = [], indices: [Int32] = []
        for index in items.indices where isIn(index, lineage: lineage) {
            scalars.append(items[index].scalar)
            indices.append(Int32(index))
        }
        return (scalars, indices)
    }

    /// Moves the cursor to record `entry`'s view (`emptyView` for none), whose lineage is `lineage`:
    /// one pass over the block. Only after a merge does a write's text parent differ from the cursor.
    mutating func show(view entry: Int32, lineage: (Int32) -> Bool) {
        for index in items.indices { items[index].shown = isIn(index, lineage: lineage) }
        cursor = entry
    }

    static func append(_ scalar: Unicode.Scalar, to utf8: inout [UInt8]) {
        if scalar.value < 0x80 { utf8.append(UInt8(scalar.value)) } else { utf8.append(contentsOf: UTF8.encode(scalar)!) }
    }

    /// Takes out everything record `entry` did (a record refused after its edits were applied):
    /// its characters and its deletion marks. The cursor is worked out again at its next move.
    mutating func undo(_ entry: Int32) {
        items.removeAll { $0.entry == entry }
        places = Dictionary(uniqueKeysWithValues: items.indices.map { (Self.key(items[$0].entry, items[$0].offset), Int32($0)) })
        for device in typedByDevice.keys { typedByDevice[device]?.removeAll { $0.entry == entry } }
        for index in items.indices where items[index].deleters.contains(entry) { items[index].deleters.removeAll { $0 == entry } }
        cursor = Self.noCursor
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

    // MARK: Edits (the cursor at the record's text parent's view)

    /// Places `scalars`, typed by record `entry` as its characters `firstOffset...`, after the
    /// character `anchor` (nil: the block's start), in the cursor's view. The anchor must be a
    /// character of this text in the record's past (`inPast`, which accepts the record itself).
    /// `ranksAbove(e)` says whether record `e` ranks above `entry` (SECURITY.md §19.3's rank).
    mutating func insert(_ scalars: [Unicode.Scalar], entry: Int32, device: Int32, firstOffset: UInt32, after anchor: (entry: Int32, offset: UInt32)?,
                         inPast: (Int32) -> Bool, ranksAbove: (Int32) -> Bool) throws(SyncError) {
        var position = 0
        if let anchor {
            guard inPast(anchor.entry), let index = index(of: anchor.entry, anchor.offset) else {
                throw SyncError(.causalityViolation, "a text insert after a character its record has not seen in that block")
            }
            position = index + 1
        }
        // Past the characters typed later at this point by higher-ranked records: a record's
        // characters rank above their anchor's, so everything typed after those is skipped too.
        while position < items.count, items[position].entry != entry, ranksAbove(items[position].entry) { position += 1 }
        let first: Anchor = anchor.map { .character(entry: $0.entry, offset: $0.offset) } ?? .start
        let new = scalars.enumerated().map { index, scalar in
            Item(entry: entry, offset: firstOffset + UInt32(index), scalar: scalar, anchor: index == 0 ? first : .within,
                 endsInsert: index == scalars.count - 1, device: device, shown: true)
        }
        items.insert(contentsOf: new, at: position)
        for index in new.indices { places[Self.key(entry, firstOffset + UInt32(index))] = Int32(position + index) }
        // In place: a device's chain here grows by one per record, and is not copied for each insert.
        let last = typedByDevice[device]?.last
        if last?.entry == entry {
            typedByDevice[device]![typedByDevice[device]!.count - 1].total += new.count
        } else {
            typedByDevice[device, default: []].append((entry, (last?.total ?? 0) + new.count))
        }
    }

    /// Marks deleted by record `deleter` the characters from `first` through `last` (named by
    /// record and offset) that are in the cursor's view (the record's text parent's view, with the
    /// record's own edits so far): characters typed concurrently, or hidden by a conflict, stay
    /// unmarked (SECURITY.md §19.2). Both ends must be characters typed in its past (or by it),
    /// `first` not after `last`, and no character between may be one it deleted already: a
    /// record's deletes do not overlap, so together they pass over each character once.
    mutating func delete(from first: (entry: Int32, offset: UInt32), through last: (entry: Int32, offset: UInt32), by deleter: Int32,
                         inPast: (Int32) -> Bool) throws(SyncError) {
        guard inPast(first.entry), inPast(last.entry), let start = index(of: first.entry, first.offset),
              let end = index(of: last.entry, last.offset), start <= end else {
            throw SyncError(.causalityViolation, "a text delete of characters its record has not seen in that block, or in the wrong order")
        }
        for index in start...end {
            guard !items[index].deleters.contains(deleter) else {
                throw SyncByteReader.malformed("two text deletes of one record overlap")
            }
            guard items[index].shown else { continue }
            items[index].deleters.append(deleter)
            items[index].shown = false
        }
    }
}
