/// Slides a window of `FingerprintIndex.shingleLength` words over a text and hands each full window's
/// fingerprint, with the bytes it spans, to a consumer.
struct Shingler {
    private let hasher: ShingleHasher
    private var normalizer = WordNormalizer()
    /// The encoded window: its words joined by 0x00.
    private var window: [UInt8] = []
    private var wordLengths: [Int] = []
    private var wordStarts: [Int] = []

    init(hasher: ShingleHasher) {
        self.hasher = hasher
        window.reserveCapacity(1024)
    }

    /// Calls `body(fingerprint, range)` for every shingle of `bytes`, in order.
    mutating func forEachShingle(in bytes: UnsafeBufferPointer<UInt8>, _ body: (UInt64, Range<Int>) -> Void) {
        window.removeAll(keepingCapacity: true)
        wordLengths.removeAll(keepingCapacity: true)
        wordStarts.removeAll(keepingCapacity: true)
        // Taken out of self for the pass, so the closure below may change the window without
        // overlapping access, and put back after (its cache of normalised words carries over).
        var normalizer = self.normalizer
        self.normalizer = WordNormalizer()
        defer { self.normalizer = normalizer }
        normalizer.forEachWord(in: bytes) { word, range in
            push(word, start: range.lowerBound)
            guard wordLengths.count == FingerprintIndex.shingleLength else { return }
            let fingerprint = window.withUnsafeBytes { hasher.fingerprint($0) }
            body(fingerprint, wordStarts[0]..<range.upperBound)
        }
    }

    private mutating func push(_ word: UnsafeBufferPointer<UInt8>, start: Int) {
        if wordLengths.count == FingerprintIndex.shingleLength {
            window.removeFirst(wordLengths[0] + 1)
            wordLengths.removeFirst()
            wordStarts.removeFirst()
        }
        if !wordLengths.isEmpty { window.append(0) }
        window.append(contentsOf: word)
        wordLengths.append(word.count)
        wordStarts.append(start)
    }
}
