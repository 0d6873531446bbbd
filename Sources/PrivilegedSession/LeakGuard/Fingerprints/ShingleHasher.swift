import CryptoVault

/// Keyed fingerprints of word shingles (SECURITY.md §11.3).
///
/// From the caller's key K (16 to 64 bytes, a secret the vault holds) keyed BLAKE2b derives three values:
///
///     shingle key     = BLAKE2b-128(key = K, "SealedVault leak guard shingle key v2")
///     polynomial keys = BLAKE2b-256(key = K, "SealedVault leak guard polynomial keys v2")
///     key check       = first 8 bytes of BLAKE2b-128(key = K, "SealedVault leak guard key check v2")
///
/// The fingerprint of the shingle of words w1...w8 (normalised, `WordNormalizer`) is
///
///     SipHash-2-4(shingle key, LE64(C_1) || LE64(C_2))
///
/// read as a little-endian 64-bit integer, where C_1 and C_2 are two keyed polynomial hashes of the
/// eight words (`ShinglePolynomial`). Being keyed, a fingerprint tells someone without K nothing
/// about the words (no dictionary attack on a stolen index); each word is hashed once, and the
/// shingle's polynomial slides along the text, so a payload costs one 16-byte SipHash per word.
/// The "v2" labels keep these fingerprints apart from version 1's (SipHash of the joined words).
struct ShingleHasher: Sendable {
    static let shingleKeyLabel = Array("SealedVault leak guard shingle key v2".utf8)
    static let polynomialKeyLabel = Array("SealedVault leak guard polynomial keys v2".utf8)
    static let keyCheckLabel = Array("SealedVault leak guard key check v2".utf8)
    static let keyCheckSize = 8
    static let polynomialKeySize = 32

    private let shingleKey: SipHash.Key
    private let polynomialKeys: SecureBytes
    /// Identifies K without revealing it, so an index is never read under the wrong key.
    let keyCheck: [UInt8]

    init(key: SecureBytes) throws(PrivilegedSessionError) {
        guard BLAKE2b.keySizes.contains(key.count) else {
            throw PrivilegedSessionError(.invalidFingerprintKey, "a fingerprint key has \(BLAKE2b.keySizes.lowerBound) to \(BLAKE2b.keySizes.upperBound) bytes, not \(key.count)")
        }
        do {
            shingleKey = try SipHash.Key(Self.derive(Self.shingleKeyLabel, count: SipHash.keySize, from: key))
            polynomialKeys = try Self.derive(Self.polynomialKeyLabel, count: Self.polynomialKeySize, from: key)
            keyCheck = Array(try BLAKE2b.hash(Self.keyCheckLabel, outputCount: 16, key: key).prefix(Self.keyCheckSize))
        } catch {
            throw PrivilegedSessionError(.invalidFingerprintKey, "the fingerprint keys could not be derived")
        }
    }

    private static func derive(_ label: [UInt8], count: Int, from key: SecureBytes) throws -> SecureBytes {
        var derivation = try BLAKE2b.Hasher(outputCount: count, key: key)
        derivation.update(label)
        return try derivation.finalizeSecret()
    }

    /// Runs `body` with the polynomial keys and the SipHash finish, for fingerprinting one text. The
    /// keys are read out of locked memory for the duration of the call only; neither argument may be
    /// kept after `body` returns.
    func withShingleFunctions<Result>(_ body: (ShinglePolynomial, SipHash.BoundHash) -> Result) -> Result {
        polynomialKeys.withUnsafeBytes { keyBytes in
            let polynomial = ShinglePolynomial(keyBytes: keyBytes)
            return shingleKey.withHashFunction { finish in body(polynomial, finish) }
        }
    }
}
