/// HKDF (RFC 5869) over HMAC-SHA-256. libsodium 1.0.18 has no HKDF, so it is built here on `HMAC`.
///
/// Every intermediate value (PRK, each block T(i)) is kept in `SecureBytes`, so derived keys never
/// pass through ordinary, unwiped memory.
public enum HKDF {
    /// HashLen for SHA-256.
    public static let hashSize = 32
    /// RFC 5869 §2.3: L <= 255 * HashLen, because the block counter is a single byte.
    public static let maximumOutputCount = 255 * hashSize

    /// HKDF-Extract: PRK = HMAC-SHA-256(salt, IKM). An empty salt means HashLen zero bytes (§2.2).
    public static func extract(salt: [UInt8], inputKeyMaterial: SecureBytes) throws -> SecureBytes {
        let key = salt.isEmpty ? [UInt8](repeating: 0, count: hashSize) : salt
        let pseudoRandomKey = try SecureBytes(count: hashSize)
        key.withUnsafeBytes { key in
            inputKeyMaterial.withUnsafeBytes { inputKeyMaterial in
                pseudoRandomKey.withUnsafeMutableBytes { output in
                    HMAC.authenticate(.sha256, key: key, messageParts: [inputKeyMaterial], into: output)
                }
            }
        }
        return pseudoRandomKey
    }

    /// HKDF-Expand: the first `outputCount` bytes of T(1) || T(2) || ..., where
    /// T(i) = HMAC-SHA-256(PRK, T(i-1) || info || i) and T(0) is empty.
    ///
    /// `outputCount` must be in 1...8160 (`.invalidInput`); the PRK must be at least HashLen bytes
    /// (`.invalidKeySize`), as §2.3 requires, since a shorter key is not the output of `extract`.
    public static func expand(pseudoRandomKey: SecureBytes, info: [UInt8], outputCount: Int) throws -> SecureBytes {
        try checkOutputCount(outputCount)
        guard pseudoRandomKey.count >= hashSize else {
            throw CryptoVaultError(.invalidKeySize, "HKDF-Expand needs a pseudorandom key of at least \(hashSize) bytes")
        }
        let blockCount = (outputCount + hashSize - 1) / hashSize
        let blocks = try SecureBytes(count: blockCount * hashSize)
        blocks.withUnsafeMutableBytes { blocks in
            pseudoRandomKey.withUnsafeBytes { key in
                info.withUnsafeBytes { info in
                    for index in 0..<blockCount { expandBlock(index, of: blocks, key: key, info: info) }
                }
            }
        }
        // A whole number of blocks is the output itself: a copy would cost another locked allocation.
        return blocks.count == outputCount ? blocks : try blocks.slice(0..<outputCount)
    }

    /// Extract then expand: the usual way to turn key material into a key for one purpose (`info`).
    public static func deriveKey(inputKeyMaterial: SecureBytes, salt: [UInt8], info: [UInt8],
                                 outputCount: Int) throws -> SecureBytes {
        // Check before extracting so a bad request does no work with the secret.
        try checkOutputCount(outputCount)
        let pseudoRandomKey = try extract(salt: salt, inputKeyMaterial: inputKeyMaterial)
        return try expand(pseudoRandomKey: pseudoRandomKey, info: info, outputCount: outputCount)
    }

    private static func checkOutputCount(_ outputCount: Int) throws {
        guard (1...maximumOutputCount).contains(outputCount) else {
            throw CryptoVaultError(.invalidInput, "HKDF output of \(outputCount) bytes is outside 1...\(maximumOutputCount)")
        }
    }

    /// Writes T(index + 1) into its slot of `blocks`, reading T(index) from the slot before it.
    private static func expandBlock(_ index: Int, of blocks: UnsafeMutableRawBufferPointer,
                                    key: UnsafeRawBufferPointer, info: UnsafeRawBufferPointer) {
        let start = index * hashSize
        let previous = UnsafeRawBufferPointer(rebasing: blocks[max(0, start - hashSize)..<start])
        let current = UnsafeMutableRawBufferPointer(rebasing: blocks[start..<start + hashSize])
        // index < 255 because outputCount <= 255 * hashSize, so the counter fits in one byte.
        withUnsafeBytes(of: UInt8(truncatingIfNeeded: index + 1)) { counter in
            HMAC.authenticate(.sha256, key: key, messageParts: [previous, info, counter], into: current)
        }
    }
}
