import CryptoVault

/// Fingerprints of privileged documents, and the question the leak guard asks of every payload:
/// does it quote eight or more consecutive words of one of them?
///
/// A document adds the keyed fingerprint of each of its 8-word shingles (`ShingleHasher`); a payload
/// is cut into shingles the same way, and each whose fingerprint is known marks its words as a quote.
/// Case, punctuation, line breaks and Unicode presentation do not matter (`WordNormalizer`), and a
/// quote needs no identifier in it to be caught. Only the 64-bit fingerprints are kept, never a word.
///
/// A document of fewer than eight words adds nothing: below a shingle, a "quote" would be a common
/// phrase. Two fingerprints colliding by chance has odds of about n / 2^64 per payload shingle.
public struct FingerprintIndex: Sendable {
    public static let shingleLength = 8
    /// The most fingerprints an index holds (512 MiB of them), checked on every add and parse.
    public static let maximumCount = 1 << 26
    /// Payload shingles looked up together (see `FingerprintTable.containment`): many, so that one
    /// sweep through the filter in order answers them all (measured: batches of 2^18 cost twice the
    /// lookup time of 2^20). A batch takes 41 bytes per shingle while it is answered (25 here, 16 in
    /// the sort), so at most 41 MiB, and only for payloads of 2 MiB or more.
    static let batchSize = 1 << 20

    let hasher: ShingleHasher
    private(set) var table: FingerprintTable

    /// An empty index whose fingerprints are keyed with `key` (16 to 64 bytes; the vault's secret).
    public init(key: SecureBytes) throws(PrivilegedSessionError) {
        hasher = try ShingleHasher(key: key)
        table = FingerprintTable()
    }

    init(hasher: ShingleHasher, table: FingerprintTable) {
        self.hasher = hasher
        self.table = table
    }

    /// An index of fingerprints computed earlier under the same key (the vault keeps them, §11.7).
    init(key: SecureBytes, fingerprints: [UInt64]) throws(PrivilegedSessionError) {
        guard fingerprints.count <= Self.maximumCount else {
            throw PrivilegedSessionError(.tooManyFingerprints, "the fingerprint index would exceed \(Self.maximumCount) fingerprints")
        }
        hasher = try ShingleHasher(key: key)
        table = FingerprintTable(minimumCapacity: fingerprints.count)
        for fingerprint in fingerprints { table.insert(fingerprint) }
    }

    /// The fingerprints of `document`'s shingles under this index's key, without adding them.
    func fingerprints(of document: UnsafeRawBufferPointer) -> [UInt64] {
        var fingerprints: [UInt64] = []
        var shingler = Shingler(hasher: hasher)
        shingler.forEachShingle(in: document.bindMemory(to: UInt8.self)) { fingerprint, _ in fingerprints.append(fingerprint) }
        return fingerprints
    }

    /// How many distinct fingerprints the index holds.
    public var count: Int { table.count }

    /// Adds every shingle of `document`. Throws, adding nothing, if the index would exceed `maximumCount`.
    public mutating func add(_ document: String) throws(PrivilegedSessionError) {
        try add(Array(document.utf8))
    }

    public mutating func add(_ document: [UInt8]) throws(PrivilegedSessionError) {
        try document.withUnsafeBufferPointer { bytes throws(PrivilegedSessionError) in try add(bytes) }
    }

    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) throws(PrivilegedSessionError) {
        var fingerprints: [UInt64] = []
        var shingler = Shingler(hasher: hasher)
        shingler.forEachShingle(in: bytes) { fingerprint, _ in fingerprints.append(fingerprint) }
        guard table.count + fingerprints.count <= Self.maximumCount else {
            throw PrivilegedSessionError(.tooManyFingerprints, "the fingerprint index would exceed \(Self.maximumCount) fingerprints")
        }
        for fingerprint in fingerprints { table.insert(fingerprint) }
    }

    /// Whether the shingle of these eight words is in the index (for tests and diagnostics).
    func contains(fingerprint: UInt64) -> Bool {
        table.contains(fingerprint)
    }

    /// The byte ranges of `bytes` that quote indexed text: each range runs from the first word of a
    /// known shingle to the last word of the last known shingle overlapping it.
    func quotes(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        quotes(in: bytes) { fingerprints, answers in table.containment(of: fingerprints, into: answers) }
    }

    /// `quotes(in:)` with each batch of the payload's fingerprints looked up by `lookUp`, which writes
    /// for each whether it is known (as `FingerprintTable.containment` does) instead of this index's
    /// table: the vault's stored fingerprints (`StoredFingerprints`). Shingles, batches and the
    /// joining of hits are the same, so the same known fingerprints make the same quotes.
    func quotes(in bytes: UnsafeBufferPointer<UInt8>,
                lookingUp lookUp: (UnsafeBufferPointer<UInt64>, UnsafeMutablePointer<Bool>) -> Void) -> [Range<Int>] {
        var quotes: [Range<Int>] = []
        // A text of n bytes has at most n / 2 + 1 words, so a short payload gets a small batch.
        var batch = QuoteBatch(capacity: min(Self.batchSize, bytes.count / 2 + 1))
        var shingler = Shingler(hasher: hasher)
        shingler.forEachShingle(in: bytes) { fingerprint, range in
            batch.append(fingerprint, range)
            if batch.isFull { batch.flush(lookingUp: lookUp, into: &quotes) }
        }
        batch.flush(lookingUp: lookUp, into: &quotes)
        return quotes
    }
}

/// Payload shingles waiting to be looked up together, and the merging of the ones found into quotes.
private struct QuoteBatch: ~Copyable {
    private let fingerprints: UnsafeMutablePointer<UInt64>
    private let ranges: UnsafeMutablePointer<Range<Int>>
    private let answers: UnsafeMutablePointer<Bool>
    private let capacity: Int
    private var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        fingerprints = .allocate(capacity: capacity)
        ranges = .allocate(capacity: capacity)
        answers = .allocate(capacity: capacity)
    }

    deinit {
        fingerprints.deallocate()
        ranges.deinitialize(count: count)
        ranges.deallocate()
        answers.deallocate()
    }

    var isFull: Bool { count >= capacity }

    mutating func append(_ fingerprint: UInt64, _ range: Range<Int>) {
        fingerprints[count] = fingerprint
        (ranges + count).initialize(to: range)
        count += 1
    }

    mutating func flush(lookingUp lookUp: (UnsafeBufferPointer<UInt64>, UnsafeMutablePointer<Bool>) -> Void, into quotes: inout [Range<Int>]) {
        lookUp(UnsafeBufferPointer(start: fingerprints, count: count), answers)
        for index in 0..<count where answers[index] {
            let range = ranges[index]
            if let last = quotes.last, range.lowerBound <= last.upperBound {
                quotes[quotes.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                quotes.append(range)
            }
        }
        ranges.deinitialize(count: count)
        count = 0
    }
}
