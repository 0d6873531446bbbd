/// Slides a window of `FingerprintIndex.shingleLength` words over a text and hands each full window's
/// fingerprint (§11.3), with the bytes it spans, to a consumer.
///
/// Each word is hashed once, into its two polynomial values; the window keeps the last eight and
/// the shingle's two sums, which slide by one word with two multiplications each
/// (`ShingleWindow.push`); the fingerprint is the SipHash of the two sums.
struct Shingler {
    private let hasher: ShingleHasher
    private var normalizer = WordNormalizer()

    init(hasher: ShingleHasher) {
        self.hasher = hasher
    }

    /// Calls `body(fingerprint, range)` for every shingle of `bytes`, in order.
    @inline(__always)
    mutating func forEachShingle(in bytes: UnsafeBufferPointer<UInt8>, _ body: (UInt64, Range<Int>) -> Void) {
        hasher.withShingleFunctions { polynomial, finish in
            var window = ShingleWindow(polynomial)
            normalizer.forEachWord(in: bytes) { word, range in
                window.push(polynomial.wordValues(word), start: range.lowerBound)
                guard window.isFull else { return }
                body(finish(window.sum1, window.sum2), window.firstStart..<range.upperBound)
            }
        }
    }
}

/// The last eight words' polynomial values and text positions, and the two sums
/// C_k = g_k(w_1) * b_k^7 + ... + g_k(w_8) over them (mod p).
private struct ShingleWindow: ~Copyable {
    private static let length = FingerprintIndex.shingleLength
    /// Positions wrap with a mask, so the length must be a power of two.
    private static let mask = length - 1

    private let polynomial: ShinglePolynomial
    /// Rings of `length` entries: each word's two values, and where it starts in the text.
    private let values1 = UnsafeMutablePointer<UInt64>.allocate(capacity: length)
    private let values2 = UnsafeMutablePointer<UInt64>.allocate(capacity: length)
    private let starts = UnsafeMutablePointer<Int>.allocate(capacity: length)
    private(set) var sum1: UInt64 = 0
    private(set) var sum2: UInt64 = 0
    /// Where the next word goes; once the window is full, also where its oldest word is.
    private var next = 0
    private var count = 0

    init(_ polynomial: ShinglePolynomial) {
        precondition(Self.length.nonzeroBitCount == 1, "the shingle length must be a power of two")
        self.polynomial = polynomial
        values1.initialize(repeating: 0, count: Self.length)
        values2.initialize(repeating: 0, count: Self.length)
        starts.initialize(repeating: 0, count: Self.length)
    }

    deinit {
        values1.deallocate()
        values2.deallocate()
        starts.deallocate()
    }

    var isFull: Bool { count == Self.length }
    var firstStart: Int { starts[isFull ? next : 0] }

    /// Adds a word: sum = sum * b + g(new), less g(oldest) * b^8 once the oldest leaves.
    @inline(__always)
    mutating func push(_ values: (UInt64, UInt64), start: Int) {
        // Without the leaving word, zero: 4p is congruent to 0. Each total is below
        // 2^62 + 2^61 + 4p < 2^64, so one reduction per sum per word is enough.
        let leaving1 = isFull ? Mersenne61.partialProduct(values1[next], polynomial.b1Leaving) : 0
        let leaving2 = isFull ? Mersenne61.partialProduct(values2[next], polynomial.b2Leaving) : 0
        sum1 = Mersenne61.reduce(Mersenne61.partialProduct(sum1, polynomial.b1) &+ values.0 &+ (Mersenne61.fourPrimes &- leaving1))
        sum2 = Mersenne61.reduce(Mersenne61.partialProduct(sum2, polynomial.b2) &+ values.1 &+ (Mersenne61.fourPrimes &- leaving2))
        if !isFull { count += 1 }
        values1[next] = values.0
        values2[next] = values.1
        starts[next] = start
        next = (next + 1) & Self.mask
    }
}
