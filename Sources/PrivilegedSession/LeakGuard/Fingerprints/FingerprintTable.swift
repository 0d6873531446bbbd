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
    /// The lookups are independent of each other, so the processor overlaps their cache misses; that
    /// is why queries come in batches.
    func containment(of values: UnsafeBufferPointer<UInt64>, into answers: UnsafeMutablePointer<Bool>) {
        filter.withUnsafeBufferPointer { filter in
            // First the filter for every value, a loop without branches whose loads the processor
            // can issue many at a time; then the table, only for the few the filter let through.
            for (index, value) in values.enumerated() { answers[index] = mayContain(value, filter) }
            slots.withUnsafeBufferPointer { slots in
                for (index, value) in values.enumerated() where answers[index] || value == 0 {
                    answers[index] = value == 0 ? holdsZero : Self.find(value, in: slots, at: slot(of: value))
                }
            }
        }
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
