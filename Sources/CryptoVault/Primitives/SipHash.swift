internal import CSodium

/// SipHash-2-4 (Aumasson and Bernstein, 2012) through libsodium's `crypto_shorthash_siphash24`: a
/// keyed pseudorandom function with a 128-bit key and a 64-bit output, built for short inputs.
///
/// It is here for the leak guard's shingle fingerprints, which hash one short message per word of
/// every payload: BLAKE2b costs a full 128-byte compression (plus the key block) per call, several
/// times SipHash's cost on 50-byte inputs, and would not reach the leak guard's throughput target.
/// A 64-bit output is a fingerprint, not a MAC for untrusted parties: use HMAC or BLAKE2b for those.
public enum SipHash {
    /// `crypto_shorthash_siphash24_KEYBYTES`.
    public static let keySize = 16

    /// A SipHash-2-4 key held in locked memory, checked for size once so that hashing cannot fail.
    public struct Key: Sendable {
        fileprivate let secret: SecureBytes

        public init(_ secret: SecureBytes) throws {
            try Sodium.ensureInitialized()
            guard secret.count == SipHash.keySize else {
                throw CryptoVaultError(.invalidKeySize, "a SipHash key has \(SipHash.keySize) bytes, not \(secret.count)")
            }
            self.secret = secret
        }
    }

    /// SipHash-2-4 of `message` under `key`, its 8 output bytes read as a little-endian integer
    /// (the byte order of the reference implementation's 64-bit result).
    public static func hash(_ message: UnsafeRawBufferPointer, key: Key) -> UInt64 {
        var output: UInt64 = 0
        withUnsafeMutableBytes(of: &output) { output in
            key.secret.withUnsafeBytes { key in
                _ = crypto_shorthash_siphash24(output.sodiumBytes, message.sodiumBytes, UInt64(message.count), key.sodiumBytes)
            }
        }
        return UInt64(littleEndian: output)
    }

    public static func hash(_ message: [UInt8], key: Key) -> UInt64 {
        message.withUnsafeBytes { hash($0, key: key) }
    }
}

extension SipHash.Key {
    /// Runs `body` with a hash function bound to this key, for hashing many messages in a row (the leak
    /// guard hashes one per word of a payload) without going through the key's storage on each call.
    /// The function must not be kept after `body` returns: it reads the key's memory directly.
    public func withHashFunction<Result>(_ body: (SipHash.BoundHash) throws -> Result) rethrows -> Result {
        try secret.withUnsafeBytes { key in try body(SipHash.BoundHash(key: key.sodiumBytes)) }
    }
}

extension SipHash {
    /// SipHash-2-4 under one key, valid only inside `Key.withHashFunction`.
    public struct BoundHash {
        fileprivate let key: UnsafePointer<UInt8>

        @inline(__always)
        public func callAsFunction(_ message: UnsafeRawBufferPointer) -> UInt64 {
            var output: UInt64 = 0
            withUnsafeMutableBytes(of: &output) { output in
                _ = crypto_shorthash_siphash24(output.sodiumBytes, message.sodiumBytes, UInt64(message.count), key)
            }
            return UInt64(littleEndian: output)
        }
    }
}
