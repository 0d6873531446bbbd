/// Arithmetic modulo the Mersenne prime p = 2^61 - 1, for the polynomial hash of shingles (§11.3).
///
/// Values are kept reduced (0 <= x < p). Because 2^61 = 1 (mod p), a 64-bit value reduces by adding
/// its top three bits to its low 61, and a product of two reduced values (at most 122 bits) by adding
/// its bits above 61 to its low 61: a multiplication costs one 64x64-bit multiply and a few adds,
/// which is what lets every word of a payload be hashed this way.
enum Mersenne61 {
    static let prime: UInt64 = (1 << 61) - 1

    /// `value` mod p, for any 64-bit value.
    @inline(__always) static func reduce(_ value: UInt64) -> UInt64 {
        let folded = (value & prime) &+ (value >> 61)  // at most p + 7
        return folded >= prime ? folded &- prime : folded
    }

    /// x * y mod p, for reduced x and y.
    @inline(__always) static func multiply(_ x: UInt64, _ y: UInt64) -> UInt64 {
        reduce(partialProduct(x, y))
    }

    /// A value below 2^62 congruent to x * y mod p, for reduced x and y: sums of a few of these and
    /// of reduced values fit 64 bits and need one `reduce` in all, not one each.
    @inline(__always) static func partialProduct(_ x: UInt64, _ y: UInt64) -> UInt64 {
        let (high, low) = x.multipliedFullWidth(by: y)
        // product = high * 2^64 + low = (high * 8 + low >> 61) * 2^61 + (low & p): the first term is
        // below 2^61 (high < 2^58), so the sum is below 2^62.
        return (low & prime) &+ (high << 3 | low >> 61)
    }

    /// 4p, which is congruent to 0 and at least any partial product: 4p - partialProduct(x, y) is
    /// a non-negative stand-in for -(x * y).
    static let fourPrimes: UInt64 = 4 * prime

    /// x + y mod p, for reduced x and y.
    @inline(__always) static func add(_ x: UInt64, _ y: UInt64) -> UInt64 {
        let sum = x &+ y
        return sum >= prime ? sum &- prime : sum
    }

    /// x^exponent mod p, for reduced x.
    static func power(_ x: UInt64, _ exponent: Int) -> UInt64 {
        var result: UInt64 = 1
        for _ in 0..<exponent { result = multiply(result, x) }
        return result
    }
}
