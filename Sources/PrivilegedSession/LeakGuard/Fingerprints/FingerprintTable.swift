/// A set of 64-bit fingerprints built for one question asked millions of times a second: is this
/// value in it? An open-addressing table with linear probing, at most half full, so a lookup is
/// usually one memory access.
///
/// The slot of a value is the top bits of the value times a random odd multiplier chosen per table.
/// Fingerprints from the index are already uniform, but a hostile index file could list clustered
/// values to make every probe walk a long chain; the multiplier, unknown to whoever wrote the file,
/// scatters them. Zero marks an empty slot, so the value 0 is remembered in a flag of its own.
struct FingerprintTable: Sendable {
    private var slots: [UInt64]
    private var shift: UInt64
    private var holdsZero = false
    private let multiplier: UInt64
    private(set) var count = 0

    init(minimumCapacity: Int = 0) {
        var capacity = 16
        while capacity < minimumCapacity * 2 { capacity <<= 1 }
        slots = [UInt64](repeating: 0, count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        multiplier = UInt64.random(in: 0...UInt64.max) | 1
    }

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
        if value == 0 { return holdsZero }
        return slots.withUnsafeBufferPointer { Self.find(value, in: $0, at: slot(of: value)) }
    }

    /// For each of `values`, whether it is in the table. The lookups are independent of each other,
    /// so the processor overlaps their cache misses; that is why queries come in batches.
    func containment(of values: [UInt64], into answers: inout [Bool]) {
        answers.removeAll(keepingCapacity: true)
        slots.withUnsafeBufferPointer { slots in
            for value in values {
                answers.append(value == 0 ? holdsZero : Self.find(value, in: slots, at: slot(of: value)))
            }
        }
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
        return true
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        shift -= 1
        for value in old where value != 0 { _ = place(value) }
    }
}
