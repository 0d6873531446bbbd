internal import COpenSSL
internal import CSodium
#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 (FIPS 180-4) through OpenSSL's libcrypto, which runs it on the CPU's SHA extensions where
/// present: several times libsodium's portable code, and the audit log hashes every entry and every
/// tree node with it. When libcrypto cannot provide SHA-256 (a misconfigured OPENSSL_CONF, no default
/// provider) libsodium computes the same function instead, as for the bundle cipher
/// (`BulkChaChaPoly`): a broken OpenSSL slows hashing, it never stops the vault. No secret is
/// involved, so nothing here throws.
public enum SHA256 {
    public static let digestSize = 32

    /// OpenSSL's SHA-256, fetched once: a fetched EVP_MD never changes and may be shared between
    /// threads (OpenSSL threads(7)), and fetching it anew per digest would cost more than the hash.
    /// nil when libcrypto offers no SHA-256; libsodium hashes then.
    nonisolated(unsafe) fileprivate static let algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    /// Whether libcrypto (rather than libsodium) computes the digests.
    public static var usesLibcrypto: Bool { algorithm != nil }

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var hasher = Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// SHA-256 of `first || second`, written into the 32 bytes of `digest`, without copying the input
    /// into one buffer and on a context kept by the calling thread: for hot loops (the audit log
    /// hashes 0x00 || entry and 0x01 || left || right, millions of times). Finishing a digest leaves
    /// no input byte in the context (OpenSSL clears its block buffer), only the digest itself.
    public static func hash(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer,
                            into digest: UnsafeMutableRawBufferPointer) {
        guard let algorithm, let context = ThreadContext.current else { return sodiumHash(first, second, into: digest) }
        start(context, algorithm)
        update(context, first)
        update(context, second)
        finish(context, into: digest)
    }

    /// The same digest by libsodium: the fallback, and what tests compare libcrypto against.
    static func sodiumHash(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer,
                           into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count == digestSize, "a SHA-256 digest takes 32 bytes")
        var state = crypto_hash_sha256_state()
        _ = crypto_hash_sha256_init(&state)
        for part in [first, second] where !part.isEmpty {
            _ = crypto_hash_sha256_update(&state, part.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
        }
        _ = crypto_hash_sha256_final(&state, digest.baseAddress!.assumingMemoryBound(to: UInt8.self))
        sodium_memzero(&state, MemoryLayout<crypto_hash_sha256_state>.size)
    }

    /// Incremental SHA-256. Noncopyable, and `finalize()` consumes it, so a finished hasher cannot be
    /// reused; its state is wiped when it ends (EVP_MD_CTX_free clears OpenSSL's; libsodium's is
    /// zeroed here), since the input may have been sensitive.
    public struct Hasher: ~Copyable {
        // An EVP_MD_CTX (opaque, so no C type leaks into this public type's layout), or, when libcrypto
        // offers no SHA-256, libsodium's state.
        private let context: OpaquePointer?
        private let sodiumState: UnsafeMutablePointer<crypto_hash_sha256_state>?

        public init() {
            if let algorithm = SHA256.algorithm, let context = EVP_MD_CTX_new() {
                SHA256.start(context, algorithm)
                (self.context, sodiumState) = (context, nil)
            } else {
                let state = UnsafeMutablePointer<crypto_hash_sha256_state>.allocate(capacity: 1)
                _ = crypto_hash_sha256_init(state)
                (context, sodiumState) = (nil, state)
            }
        }

        deinit {
            if let context { EVP_MD_CTX_free(context) }
            if let sodiumState {
                sodium_memzero(sodiumState, MemoryLayout<crypto_hash_sha256_state>.size)
                sodiumState.deallocate()
            }
        }

        public mutating func update(_ data: [UInt8]) {
            data.withUnsafeBytes { update($0) }
        }

        /// Hashes bytes in place, without copying them into an array (bulk transfers hash as they go).
        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            if let context { return SHA256.update(context, bytes) }
            guard let base = bytes.baseAddress, let sodiumState else { return }
            _ = crypto_hash_sha256_update(sodiumState, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
        }

        public consuming func finalize() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: SHA256.digestSize)
            digest.withUnsafeMutableBytes { digest in
                if let context { return SHA256.finish(context, into: digest) }
                _ = crypto_hash_sha256_final(sodiumState!, digest.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
            return digest
        }
    }

    // MARK: EVP calls

    fileprivate static func start(_ context: OpaquePointer, _ algorithm: OpaquePointer) {
        precondition(EVP_DigestInit_ex2(context, algorithm, nil) == 1, "OpenSSL could not start a SHA-256 digest")
    }

    fileprivate static func update(_ context: OpaquePointer, _ data: UnsafeRawBufferPointer) {
        guard data.count > 0 else { return }
        precondition(EVP_DigestUpdate(context, data.baseAddress, data.count) == 1, "OpenSSL could not hash")
    }

    fileprivate static func finish(_ context: OpaquePointer, into digest: UnsafeMutableRawBufferPointer) {
        precondition(digest.count == digestSize, "a SHA-256 digest takes 32 bytes")
        var written: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, digest.baseAddress?.assumingMemoryBound(to: UInt8.self), &written) == 1
                     && written == UInt32(digestSize), "OpenSSL could not finish a SHA-256 digest")
    }
}

/// Each thread's SHA-256 context for `SHA256.hash(_:_:into:)`, made on its first use and freed when
/// the thread ends: restarting a used context costs a fraction of making one.
private enum ThreadContext {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, { context in EVP_MD_CTX_free(OpaquePointer(context)) }) == 0,
                     "no thread-specific key left for SHA-256 contexts")
        return key
    }()

    /// nil only when libcrypto cannot make a context (out of memory): the caller hashes with libsodium.
    static var current: OpaquePointer? {
        if let context = pthread_getspecific(key) { return OpaquePointer(context) }
        guard let context = EVP_MD_CTX_new() else { return nil }
        precondition(pthread_setspecific(key, UnsafeRawPointer(context)) == 0, "could not keep a SHA-256 context for this thread")
        return context
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
