/// HMAC (RFC 2104) over unkeyed BLAKE2b-512 with its 128-byte block: the HMAC-HASH that the Noise
/// Protocol Framework (revision 34, §4.3) builds its HKDF on when the hash function is BLAKE2b.
///
/// This is not BLAKE2b's own keyed mode (`BLAKE2b.hash(_:key:)`); Noise uses HMAC for every hash so
/// that one HKDF definition fits all of them, and interoperating means computing exactly that.
/// Keys and outputs are secrets (chaining keys, derived keys), so both stay in `SecureBytes`.
public enum HMACBLAKE2b {
    /// HASHLEN: the BLAKE2b-512 digest.
    public static let digestSize = 64
    /// BLOCKLEN of BLAKE2b, the size keys are padded (or hashed down) to.
    public static let blockSize = 128

    private static let innerPad: UInt8 = 0x36
    private static let outerPad: UInt8 = 0x5C

    /// HMAC-BLAKE2b(key, message) = H((K0 ^ opad) || H((K0 ^ ipad) || message)), with H = BLAKE2b-512
    /// and K0 the key zero-padded to 128 bytes, or its digest zero-padded when it is longer than that.
    public static func authenticate(key: SecureBytes, message: SecureBytes) throws -> SecureBytes {
        let blockKey = try paddedKey(key)
        var inner = try BLAKE2b.Hasher(outputCount: digestSize)
        inner.update(try blockKey.xoring(innerPad))
        inner.update(message)
        let innerDigest = try inner.finalizeSecret()
        var outer = try BLAKE2b.Hasher(outputCount: digestSize)
        outer.update(try blockKey.xoring(outerPad))
        outer.update(innerDigest)
        return try outer.finalizeSecret()
    }

    /// K0 of RFC 2104 §2: the key, first hashed if longer than a block, then zero-padded to a block.
    private static func paddedKey(_ key: SecureBytes) throws -> SecureBytes {
        var material = key
        if key.count > blockSize {
            var hasher = try BLAKE2b.Hasher(outputCount: digestSize)
            hasher.update(key)
            material = try hasher.finalizeSecret()
        }
        let block = try SecureBytes(count: blockSize)
        block.withUnsafeMutableBytes { block in
            material.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: block[..<$0.count]).copyMemory(from: $0) }
        }
        return block
    }
}

extension SecureBytes {
    /// A new secret holding every byte of this one XORed with `pad`.
    fileprivate func xoring(_ pad: UInt8) throws -> SecureBytes {
        let result = try SecureBytes(count: count)
        result.withUnsafeMutableBytes { result in
            withUnsafeBytes { source in
                for index in 0..<source.count { result[index] = source[index] ^ pad }
            }
        }
        return result
    }
}
