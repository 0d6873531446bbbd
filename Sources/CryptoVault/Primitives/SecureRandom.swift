internal import CSodium

/// Random values from the operating system's CSPRNG (libsodium's `randombytes`).
///
/// Both entry points throw rather than fall back: if libsodium cannot be initialised there is no safe
/// source of randomness, and a caller that silently got predictable nonces or salts would never know.
public enum SecureRandom {
    /// Largest request we serve in one call. Callers ask for nonces, salts and identifiers; anything
    /// bigger is almost certainly a bug, and a cap keeps an attacker-influenced count from exhausting memory.
    public static let maximumCount = 1 << 26

    /// `count` random bytes for public values (nonces, salts, identifiers).
    /// For secrets use `SecureBytes.random(count:)`, which keeps them in locked, wiped memory.
    public static func bytes(_ count: Int) throws -> [UInt8] {
        try Sodium.ensureInitialized()
        guard (0...maximumCount).contains(count) else {
            throw CryptoVaultError(.invalidInput, "random byte count \(count) is out of range")
        }
        // randombytes_buf requires a non-null pointer even for zero bytes, so answer that case here.
        if count == 0 { return [] }
        var output = [UInt8](repeating: 0, count: count)
        output.withUnsafeMutableBytes { buffer in randombytes_buf(buffer.sodiumBytes, buffer.count) }
        return output
    }

    /// A uniformly distributed value in `0..<upperBound`, without modulo bias.
    /// `upperBound` must be at least 1: the range `0..<0` has no values to choose from.
    public static func uniform(_ upperBound: UInt32) throws -> UInt32 {
        try Sodium.ensureInitialized()
        guard upperBound >= 1 else {
            throw CryptoVaultError(.invalidInput, "a uniform random value needs an upper bound of at least 1")
        }
        return randombytes_uniform(upperBound)
    }
}
