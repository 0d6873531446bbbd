internal import CSodium

/// BLAKE2b (RFC 7693) through libsodium's `crypto_generichash`, optionally keyed (a MAC or a PRF).
public enum BLAKE2b {
    /// Digest sizes libsodium documents as safe (`crypto_generichash_BYTES_MIN...MAX`).
    public static let outputSizes = 16...64
    /// Key sizes libsodium documents (`crypto_generichash_KEYBYTES_MIN...MAX`). The C code also takes
    /// 1...15-byte keys; we refuse those because a short key makes a weak MAC.
    public static let keySizes = 16...64

    /// The `outputCount`-byte BLAKE2b digest of `data`, keyed when `key` is given.
    public static func hash(_ data: [UInt8], outputCount: Int = 32, key: SecureBytes? = nil) throws -> [UInt8] {
        var hasher = try Hasher(outputCount: outputCount, key: key)
        hasher.update(data)
        return try hasher.finalize()
    }

    /// Incremental BLAKE2b for input that arrives in pieces.
    ///
    /// Noncopyable, and `finalize()` consumes it, so a finished hasher cannot be updated or finalised
    /// again; the state (which, when keyed, is derived from the key) is wiped when the hasher ends.
    public struct Hasher: ~Copyable {
        // Raw, not typed with the C state, so no C type leaks into this public type's layout.
        private let state: UnsafeMutableRawPointer
        private let outputCount: Int

        public init(outputCount: Int = 32, key: SecureBytes? = nil) throws {
            try Sodium.ensureInitialized()
            try Self.validate(outputCount: outputCount, key: key)
            // The C state is declared 64-byte aligned (and, for that reason, is not imported into Swift,
            // so it is handled as an opaque pointer to memory we allocate with that alignment).
            let state = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
            // Start before storing anything, so a failure frees the state here and deinit never sees it.
            guard Self.start(OpaquePointer(state), outputCount, key) == 0 else {
                Self.release(state)
                throw CryptoVaultError(.invalidInput, "BLAKE2b could not start with these parameters")
            }
            self.state = state
            self.outputCount = outputCount
        }

        deinit { Self.release(state) }

        public mutating func update(_ data: [UInt8]) {
            data.withUnsafeBytes { data in
                _ = crypto_generichash_update(typedState, data.sodiumBytes, UInt64(data.count))
            }
        }

        /// Secret input (say, key material being fingerprinted) read from its locked memory.
        public mutating func update(_ secret: SecureBytes) {
            secret.withUnsafeBytes { data in
                _ = crypto_generichash_update(typedState, data.sodiumBytes, UInt64(data.count))
            }
        }

        public consuming func finalize() throws -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: outputCount)
            let status = digest.withUnsafeMutableBytes { crypto_generichash_final(typedState, $0.sodiumBytes, $0.count) }
            guard status == 0 else { throw CryptoVaultError(.invalidInput, "BLAKE2b could not finish") }
            return digest
        }

        /// The digest written straight into locked memory, for a key derived from a keyed hash.
        public consuming func finalizeSecret() throws -> SecureBytes {
            let digest = try SecureBytes(count: outputCount)
            let status = digest.withUnsafeMutableBytes { crypto_generichash_final(typedState, $0.sodiumBytes, $0.count) }
            guard status == 0 else { throw CryptoVaultError(.invalidInput, "BLAKE2b could not finish") }
            return digest
        }

        private var typedState: OpaquePointer {
            OpaquePointer(state)
        }

        private static func validate(outputCount: Int, key: SecureBytes?) throws {
            guard outputSizes.contains(outputCount) else {
                throw CryptoVaultError(.invalidInput, "BLAKE2b output of \(outputCount) bytes is outside \(outputSizes)")
            }
            if let key, !keySizes.contains(key.count) {
                throw CryptoVaultError(.invalidKeySize, "BLAKE2b key of \(key.count) bytes is outside \(keySizes)")
            }
        }

        private static func start(_ state: OpaquePointer, _ outputCount: Int,
                                  _ key: SecureBytes?) -> Int32 {
            guard let key else { return crypto_generichash_init(state, nil, 0, outputCount) }
            return key.withUnsafeBytes { crypto_generichash_init(state, $0.sodiumBytes, $0.count, outputCount) }
        }

        private static func release(_ state: UnsafeMutableRawPointer) {
            sodium_memzero(state, crypto_generichash_statebytes())
            state.deallocate()
        }
    }
}
