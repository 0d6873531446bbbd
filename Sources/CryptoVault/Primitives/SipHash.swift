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
        @usableFromInline let key: UnsafePointer<UInt8>

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

extension SipHash.BoundHash {
    /// SipHash-2-4 of the 16-byte message `LE64(first) || LE64(second)`, the same value as
    /// `callAsFunction` on those bytes, computed here in Swift rather than by libsodium.
    ///
    /// The leak guard asks for one of these per word of every payload (§11.3): inlined into its loop,
    /// with no call into C and no message in memory, it costs the ten SipRounds and little else. The
    /// key words are loaded from the key's locked memory on each call and live only in registers.
    @inlinable @inline(__always)
    public func callAsFunction(_ first: UInt64, _ second: UInt64) -> UInt64 {
        let raw = UnsafeRawPointer(key)
        var state = SipHash.SipState(key0: UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)),
                             key1: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        state.compress(first)
        state.compress(second)
        state.compress(16 << 56)  // the final block: no bytes left, the message length in its top byte
        return state.finalize()
    }
}

extension SipHash {
    /// The four words of SipHash's state and its two operations, as in the reference implementation.
    @usableFromInline struct SipState {
        @usableFromInline var v0: UInt64
        @usableFromInline var v1: UInt64
        @usableFromInline var v2: UInt64
        @usableFromInline var v3: UInt64

        @inlinable @inline(__always)
        init(key0: UInt64, key1: UInt64) {
            v0 = key0 ^ 0x736F_6D65_7073_6575
            v1 = key1 ^ 0x646F_7261_6E64_6F6D
            v2 = key0 ^ 0x6C79_6765_6E65_7261
            v3 = key1 ^ 0x7465_6462_7974_6573
        }

        /// Two SipRounds on one 8-byte message block.
        @inlinable @inline(__always)
        mutating func compress(_ block: UInt64) {
            v3 ^= block
            round()
            round()
            v0 ^= block
        }

        /// Four SipRounds, then the 64-bit result.
        @inlinable @inline(__always)
        mutating func finalize() -> UInt64 {
            v2 ^= 0xFF
            round()
            round()
            round()
            round()
            return v0 ^ v1 ^ v2 ^ v3
        }

        @inlinable @inline(__always)
        mutating func round() {
            v0 &+= v1; v1 = Self.rotate(v1, 13) ^ v0; v0 = Self.rotate(v0, 32)
            v2 &+= v3; v3 = Self.rotate(v3, 16) ^ v2
            v0 &+= v3; v3 = Self.rotate(v3, 21) ^ v0
            v2 &+= v1; v1 = Self.rotate(v1, 17) ^ v2; v2 = Self.rotate(v2, 32)
        }

        @inlinable @inline(__always)
        static func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
            value << count | value >> (64 &- count)
        }
    }
}
