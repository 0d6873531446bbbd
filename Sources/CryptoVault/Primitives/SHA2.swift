internal import COpenSSL
internal import CSodium

/// SHA-256 (FIPS 180-4) through OpenSSL's libcrypto, which runs it on the CPU's SHA extensions where
/// present: several times libsodium's portable code, and the audit log hashes every entry and every
/// tree node with it. No secret is involved, so nothing here throws; OpenSSL failing to hash is a
/// broken installation, not an input error, and stops the program.
public enum SHA256 {
    public static let digestSize = 32

    /// OpenSSL's SHA-256, fetched once: a fetched EVP_MD never changes and may be shared between
    /// threads (OpenSSL threads(7)), and fetching it anew per digest would cost more than the hash.
    nonisolated(unsafe) fileprivate static let algorithm: OpaquePointer = {
        guard let algorithm = EVP_MD_fetch(nil, "SHA256", nil) else { fatalError("OpenSSL's libcrypto offers no SHA-256") }
        return algorithm
    }()

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var hasher = Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// SHA-256 of `first || second`, written into the 32 bytes of `digest`, without copying the input
    /// into one buffer: for hot loops (the audit log hashes 0x00 || entry and 0x01 || left || right).
    public static func hash(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer,
                            into digest: UnsafeMutableRawBufferPointer) {
        var hasher = Hasher()
        hasher.update(first)
        hasher.update(second)
        hasher.finalize(into: digest)
    }

    /// Incremental SHA-256. Noncopyable, and `finalize()` consumes it, so a finished hasher cannot be
    /// reused; OpenSSL wipes the state when the hasher ends (EVP_MD_CTX_free clears it), since the
    /// input may have been sensitive.
    public struct Hasher: ~Copyable {
        // An EVP_MD_CTX, opaque so that no C type leaks into this public type's layout.
        private let context: OpaquePointer

        public init() {
            guard let context = EVP_MD_CTX_new() else { fatalError("out of memory for a SHA-256 context") }
            precondition(EVP_DigestInit_ex2(context, SHA256.algorithm, nil) == 1, "OpenSSL could not start a SHA-256 digest")
            self.context = context
        }

        deinit {
            EVP_MD_CTX_free(context)
        }

        public mutating func update(_ data: [UInt8]) {
            data.withUnsafeBytes { update($0) }
        }

        mutating func update(_ data: UnsafeRawBufferPointer) {
            guard data.count > 0 else { return }
            precondition(EVP_DigestUpdate(context, data.baseAddress, data.count) == 1, "OpenSSL could not hash")
        }

        public consuming func finalize() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: SHA256.digestSize)
            digest.withUnsafeMutableBytes { finish(into: $0) }
            return digest
        }

        consuming func finalize(into digest: UnsafeMutableRawBufferPointer) {
            finish(into: digest)
        }

        private func finish(into digest: UnsafeMutableRawBufferPointer) {
            precondition(digest.count == SHA256.digestSize, "a SHA-256 digest takes 32 bytes")
            var written: UInt32 = 0
            precondition(EVP_DigestFinal_ex(context, digest.baseAddress?.assumingMemoryBound(to: UInt8.self), &written) == 1
                         && written == UInt32(SHA256.digestSize), "OpenSSL could not finish a SHA-256 digest")
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

        public consuming func finalize() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: SHA512.digestSize)
            digest.withUnsafeMutableBytes { _ = crypto_hash_sha512_final(typedState, $0.sodiumBytes) }
            return digest
        }

        private var typedState: UnsafeMutablePointer<crypto_hash_sha512_state> {
            state.assumingMemoryBound(to: crypto_hash_sha512_state.self)
        }
    }
}
