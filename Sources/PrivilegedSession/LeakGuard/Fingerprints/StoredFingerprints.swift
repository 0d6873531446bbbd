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

    init(of vault: UnlockedVault) throws {
        shingles = try FingerprintIndex(key: try vault.leakFingerprintKey())
        self.vault = vault
    }

    /// The byte ranges of `bytes` that quote a privileged document (as `FingerprintIndex.quotes`).
    /// Throws, finding nothing, when the table cannot be read: a funnel never releases a payload it
    /// could not check.
    func quotes(in bytes: UnsafeBufferPointer<UInt8>) throws -> [Range<Int>] {
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
