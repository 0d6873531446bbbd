internal import CSodium

/// HMAC (RFC 2104) over SHA-256 and SHA-512, with keys of any length.
///
/// libsodium's `crypto_auth_hmacsha256`/`512` one-shot functions fix the key length at 32 bytes; the
/// init/update/final API used here accepts any length (longer keys are hashed first, per RFC 2104),
/// which HKDF salts and interoperable protocols need.
public enum HMAC {
    public static let sha256DigestSize = 32
    public static let sha512DigestSize = 64
    /// The shortest (truncated) tags `isValidSHA256`/`isValidSHA512` accept: half the digest.
    public static let sha256MinimumTagSize = sha256DigestSize / 2
    public static let sha512MinimumTagSize = sha512DigestSize / 2

    /// The HMAC-SHA-256 tag of `message` (32 bytes), for sending or storing.
    public static func sha256(key: SecureBytes, message: [UInt8]) -> [UInt8] {
        tag(.sha256, key: key, message: message)
    }

    /// The HMAC-SHA-512 tag of `message` (64 bytes), for sending or storing.
    public static func sha512(key: SecureBytes, message: [UInt8]) -> [UInt8] {
        tag(.sha512, key: key, message: message)
    }

    /// HMAC-SHA-256 used as a key-derivation step: the output stays in locked memory.
    public static func sha256Secret(key: SecureBytes, message: [UInt8]) throws -> SecureBytes {
        try secretTag(.sha256, key: key, message: message)
    }

    /// HMAC-SHA-512 used as a key-derivation step: the output stays in locked memory.
    public static func sha512Secret(key: SecureBytes, message: [UInt8]) throws -> SecureBytes {
        try secretTag(.sha512, key: key, message: message)
    }

    /// Whether `tag` authenticates `message` under `key`, compared in constant time.
    ///
    /// A truncated tag is accepted when it is a prefix of the full HMAC and at least half the digest
    /// long (16 of 32 bytes), the floor RFC 2104 §5 recommends; shorter tags are refused outright because
    /// they make forgery by guessing cheap. Tags longer than the digest are refused.
    public static func isValidSHA256(tag: [UInt8], key: SecureBytes, message: [UInt8]) -> Bool {
        isValid(.sha256, tag: tag, key: key, message: message)
    }

    /// As `isValidSHA256`, for HMAC-SHA-512: tags of 32 to 64 bytes.
    public static func isValidSHA512(tag: [UInt8], key: SecureBytes, message: [UInt8]) -> Bool {
        isValid(.sha512, tag: tag, key: key, message: message)
    }

    // MARK: - Internals

    enum Hash {
        case sha256, sha512

        var digestSize: Int { self == .sha256 ? HMAC.sha256DigestSize : HMAC.sha512DigestSize }
        var minimumTagSize: Int { self == .sha256 ? HMAC.sha256MinimumTagSize : HMAC.sha512MinimumTagSize }
    }

    private static func tag(_ hash: Hash, key: SecureBytes, message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: hash.digestSize)
        key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                output.withUnsafeMutableBytes { authenticate(hash, key: key, messageParts: [message], into: $0) }
            }
        }
        return output
    }

    private static func secretTag(_ hash: Hash, key: SecureBytes, message: [UInt8]) throws -> SecureBytes {
        let output = try SecureBytes(count: hash.digestSize)
        key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                output.withUnsafeMutableBytes { authenticate(hash, key: key, messageParts: [message], into: $0) }
            }
        }
        return output
    }

    /// The expected tag for an attacker-chosen message is exactly what a forger wants, so it is
    /// computed into a temporary buffer that is wiped before returning, never into an ordinary array.
    private static func isValid(_ hash: Hash, tag: [UInt8], key: SecureBytes, message: [UInt8]) -> Bool {
        guard (hash.minimumTagSize...hash.digestSize).contains(tag.count) else { return false }
        return withUnsafeTemporaryAllocation(byteCount: hash.digestSize, alignment: 1) { expected in
            defer { sodium_memzero(expected.sodiumBytes, expected.count) }
            key.withUnsafeBytes { key in
                message.withUnsafeBytes { authenticate(hash, key: key, messageParts: [$0], into: expected) }
            }
            return tag.withUnsafeBytes { sodium_memcmp($0.sodiumBytes, expected.sodiumBytes, tag.count) == 0 }
        }
    }

    /// HMAC of the concatenation of `messageParts` under `key`, written to `output` (exactly
    /// `hash.digestSize` bytes). Parts avoid copying secrets together first (HKDF's T(i-1) || info || i).
    static func authenticate(_ hash: Hash, key: UnsafeRawBufferPointer, messageParts: [UnsafeRawBufferPointer],
                             into output: UnsafeMutableRawBufferPointer) {
        // The output size is set by our own callers; a mismatch is a programming error, and writing
        // nothing (leaving zeros that verify nothing) is safer than writing past the buffer.
        guard output.count == hash.digestSize else { return }
        switch hash {
        case .sha256: authenticateSHA256(key: key, messageParts: messageParts, into: output.sodiumBytes)
        case .sha512: authenticateSHA512(key: key, messageParts: messageParts, into: output.sodiumBytes)
        }
    }

    /// The state holds key-derived pads, so it lives on the heap (not copied around by Swift) and is
    /// wiped before it is freed. libsodium's HMAC init/update/final have no failure path (they always
    /// return 0), so their results are not checked.
    private static func authenticateSHA256(key: UnsafeRawBufferPointer, messageParts: [UnsafeRawBufferPointer],
                                           into output: UnsafeMutablePointer<UInt8>) {
        let state = UnsafeMutablePointer<crypto_auth_hmacsha256_state>.allocate(capacity: 1)
        defer {
            sodium_memzero(state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
            state.deallocate()
        }
        _ = crypto_auth_hmacsha256_init(state, key.sodiumBytes, key.count)
        for part in messageParts {
            _ = crypto_auth_hmacsha256_update(state, part.sodiumBytes, UInt64(part.count))
        }
        _ = crypto_auth_hmacsha256_final(state, output)
    }

    private static func authenticateSHA512(key: UnsafeRawBufferPointer, messageParts: [UnsafeRawBufferPointer],
                                           into output: UnsafeMutablePointer<UInt8>) {
        let state = UnsafeMutablePointer<crypto_auth_hmacsha512_state>.allocate(capacity: 1)
        defer {
            sodium_memzero(state, MemoryLayout<crypto_auth_hmacsha512_state>.size)
            state.deallocate()
        }
        _ = crypto_auth_hmacsha512_init(state, key.sodiumBytes, key.count)
        for part in messageParts {
            _ = crypto_auth_hmacsha512_update(state, part.sodiumBytes, UInt64(part.count))
        }
        _ = crypto_auth_hmacsha512_final(state, output)
    }
}
