import CryptoVault

/// Keyed fingerprints of word shingles (SECURITY.md §11.3).
///
/// From the caller's key K (16 to 64 bytes, a secret the vault holds) keyed BLAKE2b derives two values:
///
///     shingle key = BLAKE2b-128(key = K, "SealedVault leak guard shingle key v1")
///     key check   = first 8 bytes of BLAKE2b-128(key = K, "SealedVault leak guard key check v1")
///
/// and the fingerprint of the shingle of words w1...w8 (normalised, `WordNormalizer`) is
///
///     SipHash-2-4(shingle key, w1 || 0x00 || w2 || 0x00 || ... || 0x00 || w8)
///
/// read as a little-endian 64-bit integer. Normalised words are never empty and their UTF-8 never holds
/// a zero byte, so the encoding is unambiguous. Being keyed, a fingerprint tells someone without K
/// nothing about the words (no dictionary attack on a stolen index); SipHash rather than BLAKE2b does
/// the per-shingle hashing because one hash per word of every payload must be cheap (see §11.3).
struct ShingleHasher: Sendable {
    static let shingleKeyLabel = Array("SealedVault leak guard shingle key v1".utf8)
    static let keyCheckLabel = Array("SealedVault leak guard key check v1".utf8)
    static let keyCheckSize = 8

    private let shingleKey: SipHash.Key
    /// Identifies K without revealing it, so an index is never read under the wrong key.
    let keyCheck: [UInt8]

    init(key: SecureBytes) throws(PrivilegedSessionError) {
        guard BLAKE2b.keySizes.contains(key.count) else {
            throw PrivilegedSessionError(.invalidFingerprintKey, "a fingerprint key has \(BLAKE2b.keySizes.lowerBound) to \(BLAKE2b.keySizes.upperBound) bytes, not \(key.count)")
        }
        do {
            var derivation = try BLAKE2b.Hasher(outputCount: SipHash.keySize, key: key)
            derivation.update(Self.shingleKeyLabel)
            shingleKey = try SipHash.Key(derivation.finalizeSecret())
            keyCheck = Array(try BLAKE2b.hash(Self.keyCheckLabel, outputCount: 16, key: key).prefix(Self.keyCheckSize))
        } catch {
            throw PrivilegedSessionError(.invalidFingerprintKey, "the fingerprint keys could not be derived")
        }
    }

    /// The fingerprint of one encoded shingle (words joined by 0x00).
    func fingerprint(_ shingle: UnsafeRawBufferPointer) -> UInt64 {
        SipHash.hash(shingle, key: shingleKey)
    }

    /// Runs `body` with the fingerprint function for many shingles in a row.
    func withFingerprintFunction<Result>(_ body: (SipHash.BoundHash) -> Result) -> Result {
        shingleKey.withHashFunction(body)
    }
}
