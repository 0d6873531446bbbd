/// The two keyed polynomial hashes that turn a shingle's eight words into the 16-byte message its
/// fingerprint is the SipHash of (SECURITY.md §11.3). With p = 2^61 - 1 and keys a1, b1, a2, b2:
///
///     g_a(w)  = n * a^m + c_1 * a^(m-1) + ... + c_m            (mod p)
///     C_k     = g_ak(w_1) * b_k^7 + g_ak(w_2) * b_k^6 + ... + g_ak(w_8)   (mod p), k = 1, 2
///
/// where w has n bytes (its normalised UTF-8) cut into m = ceil(n / 7) chunks of 7 bytes, the last
/// padded with zeros, each read as a little-endian integer c_j < 2^56.
///
/// Why: hashing each word once, and sliding the shingle sum along with two multiplications, costs
/// a few multiplications per word where SipHash over the whole 8-word shingle cost a SipHash of
/// about 50 bytes per word. Distinct shingles give distinct polynomials in (a, b), so with secret,
/// uniform keys two of them collide with probability at most (7 + m) / p per hash, m the most chunks
/// of any of their words (Schwartz-Zippel; 44 / p for words up to 256 bytes), about 2^-111 for
/// both; SipHash then makes the pair a pseudorandom value.
/// A word read from the payload is lowercased here by setting bit 0x20 of each byte (`fold`), which
/// is exact for ASCII letters and digits, so the common word is hashed where it lies.
struct ShinglePolynomial {
    static let chunkSize = 7

    /// Reduced mod p; a secret derived from the caller's key, held only while a text is read.
    let a1, b1, a2, b2: UInt64
    /// b1^8 and b2^8: what the oldest word's value is multiplied by when it leaves the window.
    let b1Leaving, b2Leaving: UInt64

    /// The keys from 32 bytes: four little-endian 64-bit values, each reduced mod p.
    init(keyBytes: UnsafeRawBufferPointer) {
        func key(_ index: Int) -> UInt64 {
            Mersenne61.reduce(UInt64(littleEndian: keyBytes.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self)))
        }
        (a1, b1, a2, b2) = (key(0), key(1), key(2), key(3))
        b1Leaving = Mersenne61.power(b1, FingerprintIndex.shingleLength)
        b2Leaving = Mersenne61.power(b2, FingerprintIndex.shingleLength)
    }

    /// (g_a1(w), g_a2(w)) for one normalised word.
    @inline(__always)
    func wordValues(_ word: NormalizedWord) -> (UInt64, UInt64) {
        var value1 = UInt64(word.count)
        var value2 = value1
        var offset = 0
        while offset < word.count {
            let chunk = word.chunk(at: offset)
            // Below 2^62 + 2^56: one reduction for the product and the sum.
            value1 = Mersenne61.reduce(Mersenne61.partialProduct(value1, a1) &+ chunk)
            value2 = Mersenne61.reduce(Mersenne61.partialProduct(value2, a2) &+ chunk)
            offset += Self.chunkSize
        }
        return (value1, value2)
    }
}

extension NormalizedWord {
    /// The 7-byte chunk at `offset` (a multiple of 7 below `count`), zero-padded, little-endian.
    @inline(__always)
    func chunk(at offset: Int) -> UInt64 {
        let length = min(ShinglePolynomial.chunkSize, count - offset)
        let mask: UInt64 = (1 << UInt64(8 * length)) - 1
        if offset + 8 <= readable {
            // One unaligned load of 8 bytes, all readable; the bytes past the chunk are masked off.
            let loaded = UInt64(littleEndian: UnsafeRawPointer(start + offset).loadUnaligned(as: UInt64.self))
            return (loaded | fold) & mask
        }
        var value: UInt64 = 0
        for index in 0..<length { value |= UInt64(start[offset + index]) << UInt64(8 * index) }
        return (value | fold) & mask
    }
}
