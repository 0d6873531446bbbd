import Foundation

/// Slides a window of `FingerprintIndex.shingleLength` words over a text and hands each full window's
/// fingerprint, with the bytes it spans, to a consumer.
///
/// Normalised words are written one after another into an arena, each after a 0x00, so the encoded
/// shingle (§11.3: w1 || 0x00 || ... || w8) is always one contiguous stretch of it and is hashed where
/// it lies. When the arena fills, the last seven words move to its start.
struct Shingler {
    private static let shingleLength = FingerprintIndex.shingleLength
    private static let initialArenaSize = 1 << 16

    private let hasher: ShingleHasher
    private var normalizer = WordNormalizer()

    init(hasher: ShingleHasher) {
        self.hasher = hasher
    }

    /// Calls `body(fingerprint, range)` for every shingle of `bytes`, in order.
    @inline(__always)
    mutating func forEachShingle(in bytes: UnsafeBufferPointer<UInt8>, _ body: (UInt64, Range<Int>) -> Void) {
        var window = WordWindow(arenaSize: Self.initialArenaSize)
        defer { window.deallocate() }
        hasher.withFingerprintFunction { fingerprint in
            normalizer.forEachWord(in: bytes) { word, range in
                window.push(word, start: range.lowerBound)
                guard window.isFull else { return }
                body(fingerprint(window.shingle), window.firstStart..<range.upperBound)
            }
        }
    }
}

/// The last eight words, encoded back to back in an arena, with where each starts in the text.
private struct WordWindow {
    private static let length = FingerprintIndex.shingleLength

    private var arena: UnsafeMutablePointer<UInt8>
    private var arenaSize: Int
    private var end = 0
    /// Ring of the words' offsets in the arena and in the text; `count` words, oldest at `oldest`.
    /// The length is a power of two, so positions wrap with a mask.
    private let arenaStarts = UnsafeMutablePointer<Int>.allocate(capacity: length)
    private let textStarts = UnsafeMutablePointer<Int>.allocate(capacity: length)
    private static let mask = length - 1
    private var oldest = 0
    private var count = 0

    init(arenaSize: Int) {
        precondition(Self.length.nonzeroBitCount == 1, "the shingle length must be a power of two")
        self.arenaSize = arenaSize
        arena = .allocate(capacity: arenaSize)
        arenaStarts.initialize(repeating: 0, count: Self.length)
        textStarts.initialize(repeating: 0, count: Self.length)
    }

    var isFull: Bool { count == Self.length }
    var firstStart: Int { textStarts[oldest] }

    /// The encoded shingle of the words in the window.
    var shingle: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: arena + arenaStarts[oldest], count: end - arenaStarts[oldest])
    }

    @inline(__always)
    mutating func push(_ word: UnsafeBufferPointer<UInt8>, start: Int) {
        if end + word.count + 1 > arenaSize { makeRoom(for: word.count + 1) }
        if count > 0 {
            arena[end] = 0
            end += 1
        }
        let slot = (oldest + count) & Self.mask
        if count == Self.length { oldest = (oldest + 1) & Self.mask } else { count += 1 }
        arenaStarts[slot] = end
        textStarts[slot] = start
        // A byte loop: words are a few bytes long, shorter than a memmove call is worth.
        for byte in word {
            arena[end] = byte
            end += 1
        }
    }

    /// Moves the newest seven words to the arena's start (growing it if even that does not leave room).
    private mutating func makeRoom(for needed: Int) {
        let keepFrom = count == 0 ? end : arenaStarts[count == Self.length ? (oldest + 1) & Self.mask : oldest]
        let kept = end - keepFrom
        if kept + needed > arenaSize {
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * (kept + needed))
            larger.update(from: arena + keepFrom, count: kept)
            arena.deallocate()
            arena = larger
            arenaSize = 2 * (kept + needed)
        } else {
            memmove(arena, arena + keepFrom, kept)
        }
        for index in 0..<Self.length { arenaStarts[index] -= keepFrom }
        end = kept
    }

    func deallocate() {
        arena.deallocate()
        arenaStarts.deallocate()
        textStarts.deallocate()
    }
}
