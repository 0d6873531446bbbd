internal import CSodium

/// SHA-256 (FIPS 180-4) through libsodium. No secret is involved, so nothing here throws.
public enum SHA256 {
    public static let digestSize = 32

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var hasher = Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// Incremental SHA-256. Noncopyable, and `finalize()` consumes it, so a finished hasher cannot be
    /// reused; the state is wiped when the hasher ends, since the input may have been sensitive.
    public struct Hasher: ~Copyable {
        // Raw, not typed with the C state, so no C type leaks into this public type's layout.
        private let state: UnsafeMutableRawPointer

        public init() {
            state = .allocate(byteCount: crypto_hash_sha256_statebytes(),
                              alignment: MemoryLayout<crypto_hash_sha256_state>.alignment)
            // crypto_hash_sha256_init/update/final always return 0 in libsodium.
            _ = crypto_hash_sha256_init(typedState)
        }

        deinit {
            sodium_memzero(state, crypto_hash_sha256_statebytes())
            state.deallocate()
        }

        public mutating func update(_ data: [UInt8]) {
            data.withUnsafeBytes { _ = crypto_hash_sha256_update(typedState, $0.sodiumBytes, UInt64($0.count)) }
        }

        public consuming func finalize() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: SHA256.digestSize)
            digest.withUnsafeMutableBytes { _ = crypto_hash_sha256_final(typedState, $0.sodiumBytes) }
            return digest
        }

        private var typedState: UnsafeMutablePointer<crypto_hash_sha256_state> {
            state.assumingMemoryBound(to: crypto_hash_sha256_state.self)
        }
    }
}

/// SHA-512 (FIPS 180-4) through libsodium. No secret is involved, so nothing here throws.
public enum SHA512 {
    public static let digestSize = 64

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var hasher = Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// Incremental SHA-512; see `SHA256.Hasher`.
    public struct Hasher: ~Copyable {
        private let state: UnsafeMutableRawPointer

        public init() {
            state = .allocate(byteCount: crypto_hash_sha512_statebytes(),
                              alignment: MemoryLayout<crypto_hash_sha512_state>.alignment)
            _ = crypto_hash_sha512_init(typedState)
        }

        deinit {
            sodium_memzero(state, crypto_hash_sha512_statebytes())
            state.deallocate()
        }

        public mutating func update(_ data: [UInt8]) {
            data.withUnsafeBytes { _ = crypto_hash_sha512_update(typedState, $0.sodiumBytes, UInt64($0.count)) }
        }

        /// Secret input (a shared secret, a password) read from its locked memory.
        public mutating func update(_ secret: SecureBytes) {
            secret.withUnsafeBytes { _ = crypto_hash_sha512_update(typedState, $0.sodiumBytes, UInt64($0.count)) }
        }

        public consuming func finalize() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: SHA512.digestSize)
            digest.withUnsafeMutableBytes { _ = crypto_hash_sha512_final(typedState, $0.sodiumBytes) }
            return digest
        }

        /// `finalize` for a digest that is itself a secret (a session key): it goes straight into locked memory.
        public consuming func finalizeSecret() throws -> SecureBytes {
            let digest = try SecureBytes(count: SHA512.digestSize)
            digest.withUnsafeMutableBytes { _ = crypto_hash_sha512_final(typedState, $0.sodiumBytes) }
            return digest
        }

        private var typedState: UnsafeMutablePointer<crypto_hash_sha512_state> {
            state.assumingMemoryBound(to: crypto_hash_sha512_state.self)
        }
    }
}
