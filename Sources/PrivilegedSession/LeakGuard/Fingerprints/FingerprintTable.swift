/// A set of 64-bit fingerprints built for one question asked millions of times a second: is this
/// value in it? An open-addressing table with linear probing, at most half full, so a lookup is
/// usually one memory access; and in front of it a filter of 8 bits per slot (16 or more per value),
/// an eighth of the table's size and so far likelier to be in cache, that answers "no" for most
/// values that are absent without touching the table. Each value sets two bits of one 64-bit filter
/// word (a blocked Bloom filter): one memory access per query, as with a single bit, but about one
/// absent value in a hundred gets through rather than one in twenty, and each that does costs a
/// table access that is nearly always a cache miss.
///
/// The slot of a value is the top bits of the value times a random odd multiplier chosen per table.
/// Fingerprints from the index are already uniform, but a hostile index file could list clustered
/// values to make every probe walk a long chain; the multiplier, unknown to whoever wrote the file,
/// scatters them. Zero marks an empty slot, so the value 0 is remembered in a flag of its own.
struct FingerprintTable: Sendable {
    private var slots: [UInt64]
    private var shift: UInt64
    /// For every value v in the table, the two bits of `filterEntry(v)` are set.
    private var filter: [UInt64]
    private var holdsZero = false
    private let multiplier: UInt64
    /// Chooses the two bits within a filter word, independently of the word.
    private let bitMultiplier: UInt64
    private(set) var count = 0

    init(minimumCapacity: Int = 0) {
        var capacity = 16
        while capacity < minimumCapacity * 2 { capacity <<= 1 }
        slots = [UInt64](repeating: 0, count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        filter = [UInt64](repeating: 0, count: capacity / 8)
        multiplier = UInt64.random(in: 0...UInt64.max) | 1
        bitMultiplier = UInt64.random(in: 0...UInt64.max) | 1
    }

    /// The filter has 8 bits per slot, so one word per 8 slots: its index takes 3 bits fewer of
    /// the product than the slot index does.
    private var filterWordShift: UInt64 { shift + 3 }

    mutating func insert(_ value: UInt64) {
        if value == 0 {
            if !holdsZero { count += 1 }
            holdsZero = true
            return
        }
        if (count + 1) * 2 > slots.count { grow() }
        if place(value) { count += 1 }
    }

    func contains(_ value: UInt64) -> Bool {
        var answer = false
        withUnsafeMutablePointer(to: &answer) { answer in
            [value].withUnsafeBufferPointer { containment(of: $0, into: answer) }
        }
        return answer
    }

    /// For each of `values`, whether it is in the table, written to `answers` (as many as `values`).
    ///
    /// Queries are random, and a filter of millions of values is far larger than the processor's
    /// caches, so answering them in the order given costs a cache miss each. A large batch is first
    /// put in the order of the filter word each value falls in (a counting sort on the top bits of
    /// the same product), so that filter and table are walked from start to end, each cache line
    /// fetched once for all the queries that fall in it, as the processor's prefetcher expects.
    func containment(of values: UnsafeBufferPointer<UInt64>, into answers: UnsafeMutablePointer<Bool>) {
        // The queries in the order they are answered, each with its index in `values`: read from
        // start to end, so the sort's gather costs no cache misses of its own.
        let queries = UnsafeMutablePointer<(value: UInt64, index: UInt32)>.allocate(capacity: max(values.count, 1))
        defer { queries.deallocate() }
        if values.count >= Self.sortedBatchMinimum {
            sortByPlace(values, into: queries)
        } else {
            for (index, value) in values.enumerated() { (queries + index).initialize(to: (value, UInt32(truncatingIfNeeded: index))) }
        }
        filter.withUnsafeBufferPointer { filter in
            slots.withUnsafeBufferPointer { slots in
                for position in 0..<values.count {
                    let (value, index) = queries[position]
                    answers[Int(index)] = value == 0 ? holdsZero : mayContain(value, filter) && Self.find(value, in: slots, at: slot(of: value))
                }
            }
        }
    }

    /// Below this many queries a batch is answered as given: the sort's fixed cost (one pass over
    /// `placeBuckets` counters) would outweigh what it saves.
    static let sortedBatchMinimum = 1 << 14
    /// The sort's buckets: the top 8 bits of the product, so a bucket covers 1/256 of the filter (32
    /// KiB for 3 million fingerprints: its queries then hit the first-level cache), and the sort
    /// writes to only 256 places at a time, which the processor's write buffers absorb.
    private static let placeBits: UInt64 = 8
    private static let placeBuckets = 1 << placeBits

    /// Writes `values` (fewer than 2^32), each with its index, to `queries` sorted by the top bits of
    /// their product with the multiplier, which choose their filter word and their slot.
    private func sortByPlace(_ values: UnsafeBufferPointer<UInt64>, into queries: UnsafeMutablePointer<(value: UInt64, index: UInt32)>) {
        precondition(values.count <= Int(UInt32.max), "a batch of queries is indexed with 32 bits")
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: Self.placeBuckets + 1)
        defer { starts.deallocate() }
        starts.initialize(repeating: 0, count: Self.placeBuckets + 1)
        for value in values { starts[place(of: value) + 1] += 1 }
        for bucket in 0..<Self.placeBuckets { starts[bucket + 1] += starts[bucket] }
        for (index, value) in values.enumerated() {
            let bucket = place(of: value)
            (queries + starts[bucket]).initialize(to: (value, UInt32(truncatingIfNeeded: index)))
            starts[bucket] += 1
        }
    }

    @inline(__always) private func place(of value: UInt64) -> Int {
        Int(truncatingIfNeeded: (value &* multiplier) >> (64 - Self.placeBits))
    }

    @inline(__always) private func mayContain(_ value: UInt64, _ filter: UnsafeBufferPointer<UInt64>) -> Bool {
        let (word, bits) = filterEntry(value)
        return filter[word] & bits == bits
    }

    private mutating func mark(_ value: UInt64) {
        let (word, bits) = filterEntry(value)
        filter[word] |= bits
    }

    /// The filter word of `value` and the two bits it sets there (they may coincide).
    @inline(__always) private func filterEntry(_ value: UInt64) -> (word: Int, bits: UInt64) {
        let word = Int(truncatingIfNeeded: (value &* multiplier) >> filterWordShift)
        let mixed = value &* bitMultiplier
        return (word, 1 << (mixed >> 58) | 1 << (mixed >> 52 & 63))
    }

    /// Every value, in increasing order.
    func sortedValues() -> [UInt64] {
        var values = slots.filter { $0 != 0 }
        if holdsZero { values.append(0) }
        values.sort()
        return values
    }

    @inline(__always) private func slot(of value: UInt64) -> Int {
        Int(truncatingIfNeeded: (value &* multiplier) >> shift)
    }

    @inline(__always) private static func find(_ value: UInt64, in slots: UnsafeBufferPointer<UInt64>, at start: Int) -> Bool {
        let mask = slots.count - 1
        var index = start
        while true {
            let stored = slots[index]
            if stored == value { return true }
            if stored == 0 { return false }
            index = (index + 1) & mask
        }
    }

    /// Puts a non-zero value in its slot; false if it was there already.
    private mutating func place(_ value: UInt64) -> Bool {
        let mask = slots.count - 1
        var index = slot(of: value)
        while slots[index] != 0 {
            if slots[index] == value { return false }
            index = (index + 1) & mask
        }
        slots[index] = value
        mark(value)
        return true
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        filter = [UInt64](repeating: 0, count: slots.count / 8)
        shift -= 1
        for value in old where value != 0 { _ = place(value) }
    }
}
