import CryptoVault

/// The vault's fingerprints of privileged words (SECURITY.md §11.7) as the egress funnel asks about
/// them: each payload's own shingle fingerprints are looked up by key in `leak_fingerprints`, where a
/// guard built with `PrivilegedFingerprints.index` loads the whole table first. That table grows
/// with every privileged word the owner writes: with 1,000,000 fingerprints (about a million words of
/// notes) loading them cost each funnel ~380 ms, paid by every colleague exchange, model call, export
/// and share (review 17 s14, N-s14-2). A lookup costs the same whatever the table holds, so a funnel
/// costs what its payloads hold. The answers are the same: a fingerprint is known or not, whichever
/// way it is asked (`FingerprintIndex.quotes(in:lookingUp:)` makes the quotes from them alike), and
/// each payload sees every fingerprint committed before it is checked.
struct StoredFingerprints: Sendable {
    /// An index with no fingerprints, under the vault's fingerprint key: its shingler.
    private let shingles: FingerprintIndex
    private let vault: UnlockedVault

    /// The payload size (bytes) from which the table may be read whole instead of looked up.
    static let wholeTableFloor = 8 << 10

    init(of vault: UnlockedVault) throws {
        shingles = try FingerprintIndex(key: try vault.leakFingerprintKey())
        self.vault = vault
    }

    /// The byte ranges of `bytes` that quote a privileged document (as `FingerprintIndex.quotes`).
    /// Throws, finding nothing, when the table cannot be read: a funnel never releases a payload it
    /// could not check.
    func quotes(in bytes: UnsafeBufferPointer<UInt8>) throws -> [Range<Int>] {
        // A payload with more shingles than the table holds fingerprints is checked against the table
        // loaded whole, which then costs less than its lookups: a 100 MB payload against a small table
        // took ~100 s of lookups in a debug build (closing note s15). A text of n bytes has at most
        // n / 2 + 1 shingles. A short payload's few lookups cost less than counting.
        if bytes.count >= Self.wholeTableFloor,
           let held = try vault.leakFingerprints(ifFewerThan: min(bytes.count / 2 + 1, FingerprintIndex.maximumCount)) {
            var table = FingerprintTable(minimumCapacity: held.count)
            for fingerprint in held { table.insert(fingerprint) }
            return FingerprintIndex(hasher: shingles.hasher, table: table).quotes(in: bytes)
        }
        var failure: (any Error)?
        let quotes = shingles.quotes(in: bytes) { fingerprints, answers in
            answers.initialize(repeating: false, count: fingerprints.count)
            guard failure == nil, !fingerprints.isEmpty else { return }
            do { try vault.storedLeakFingerprints(fingerprints, into: answers) } catch { failure = error }
        }
        if let failure { throw failure }
        return quotes
    }
}
