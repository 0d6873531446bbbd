internal import CSodium

/// XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha): 32-byte key, 24-byte nonce, 16-byte tag.
///
/// The 24-byte nonce is long enough to draw at random for every message (collisions are negligible),
/// which is why the vault uses this construction for wrapping keys. It shares its checks and buffer
/// handling with `ChaChaPoly` (see `SodiumAEAD` in ChaChaPoly.swift). Sealed output is `ciphertext || tag`.
public enum XChaChaPoly {
    public static let keySize = 32
    public static let nonceSize = 24
    public static let tagSize = 16

    static var construction: SodiumAEAD {
        SodiumAEAD(name: "XChaCha20-Poly1305", nonceSize: nonceSize,
                   messageBytesMax: crypto_aead_xchacha20poly1305_ietf_messagebytes_max(),
                   encrypt: crypto_aead_xchacha20poly1305_ietf_encrypt,
                   decrypt: crypto_aead_xchacha20poly1305_ietf_decrypt)
    }

    /// Encrypts and authenticates `plaintext`, also authenticating `additionalData`; returns ciphertext || tag.
    public static func seal(_ plaintext: [UInt8], key: SecureBytes, nonce: [UInt8],
                            authenticating additionalData: [UInt8] = []) throws -> [UInt8] {
        try plaintext.withUnsafeBytes { try construction.seal($0, key: key, nonce: nonce, additionalData: additionalData) }
    }

    /// Verifies and decrypts ciphertext || tag. Throws `.authenticationFailure` (and returns nothing) if
    /// anything was altered or the key, nonce or additional data differ from those used to seal.
    public static func open(_ sealed: [UInt8], key: SecureBytes, nonce: [UInt8],
                            authenticating additionalData: [UInt8] = []) throws -> [UInt8] {
        try construction.open(sealed, key: key, nonce: nonce, additionalData: additionalData)
    }

    /// `seal` for a secret plaintext (a key being wrapped), read straight from its locked memory.
    public static func sealSecret(_ plaintext: SecureBytes, key: SecureBytes, nonce: [UInt8],
                                  authenticating additionalData: [UInt8] = []) throws -> [UInt8] {
        try plaintext.withUnsafeBytes { try construction.seal($0, key: key, nonce: nonce, additionalData: additionalData) }
    }

    /// `open` that decrypts straight into locked memory, so the plaintext never sits in an ordinary array.
    public static func openSecret(_ sealed: [UInt8], key: SecureBytes, nonce: [UInt8],
                                  authenticating additionalData: [UInt8] = []) throws -> SecureBytes {
        try construction.openSecret(sealed, key: key, nonce: nonce, additionalData: additionalData)
    }

    // MARK: In place, for small values sealed and opened by the thousand (sealed records)

    /// `seal` writing ciphertext || tag into `output` (exactly `plaintext.count + 16` bytes), with the
    /// nonce and additional data read where they lie: no intermediate array.
    package static func seal(_ plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, key: SecureBytes,
                             nonce: UnsafeRawBufferPointer, authenticating additionalData: UnsafeRawBufferPointer,
                             reusing context: BulkChaChaPoly.Context? = nil) throws {
        try check(key: key, nonce: nonce)
        guard output.count == plaintext.count + tagSize, plaintext.count <= construction.maximumMessageSize else {
            throw CryptoVaultError(.invalidInput, "XChaCha20-Poly1305: the output must be the message's size plus the tag")
        }
        let status = key.withUnsafeBytes { key in
            crypto_aead_xchacha20poly1305_ietf_encrypt(
                output.baseAddress!.assumingMemoryBound(to: UInt8.self), nil,
                plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                additionalData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(additionalData.count),
                nil, nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        guard status == 0 else { throw CryptoVaultError(.invalidInput, "XChaCha20-Poly1305: encryption failed") }
    }

    /// `open` reading ciphertext || tag, nonce and additional data where they lie (a database row's
    /// buffer) and writing the plaintext into `output` (exactly `sealed.count - 16` bytes: locked
    /// memory, for a sealed record). `output` is zeroed if the message is refused.
    ///
    /// Why not libsodium's XChaCha20-Poly1305 here: opening records by the thousand is mostly this
    /// call, and libsodium 1.0.18's ChaCha20 and Poly1305 are not vectorised (see `BulkChaChaPoly`).
    /// The construction is HChaCha20(key, nonce[0..<16]) as the subkey, then RFC 8439's
    /// ChaCha20-Poly1305 under it with the nonce 0x00000000 || nonce[16..<24], which is exactly what
    /// libsodium computes: the subkey comes from libsodium, the AEAD from libcrypto (libsodium's when
    /// libcrypto cannot), and the sealed-record vectors and a test against libsodium hold it to the
    /// same bytes. The subkey lives on the stack, as it does inside libsodium, and is wiped on return.
    package static func open(_ sealed: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, key: SecureBytes,
                             nonce: UnsafeRawBufferPointer, authenticating additionalData: UnsafeRawBufferPointer,
                             reusing context: BulkChaChaPoly.Context? = nil) throws {
        // No Sodium.ensureInitialized() here: the key is a SecureBytes, whose making needed libsodium
        // (and asking again for each of thousands of small records cost a swift_once each).
        try checkSizes(key: key, nonce: nonce)
        var refused: CryptoVaultError {
            CryptoVaultError(.authenticationFailure, "XChaCha20-Poly1305: the message is not authentic (altered, or wrong key, nonce or associated data)")
        }
        guard sealed.count >= tagSize, sealed.baseAddress != nil else { throw refused }
        guard output.count == sealed.count - tagSize else {
            throw CryptoVaultError(.invalidInput, "XChaCha20-Poly1305: the output must be the message's size less the tag")
        }
        let nonceBytes = nonce.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var subkey = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var innerNonce = (UInt32(0), UInt32(0), UInt32(0))
        let authentic = withUnsafeMutableBytes(of: &subkey) { subkey in
            defer { sodium_memzero(subkey.baseAddress!, subkey.count) }
            key.withUnsafeBytes { key in
                _ = crypto_core_hchacha20(subkey.baseAddress!.assumingMemoryBound(to: UInt8.self), nonceBytes,
                                          key.baseAddress!.assumingMemoryBound(to: UInt8.self), nil)
            }
            return withUnsafeMutableBytes(of: &innerNonce) { innerNonce in
                UnsafeMutableRawBufferPointer(rebasing: innerNonce[4...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: nonce[16...]))
                return BulkChaChaPoly.open(sealed, into: output, key: UnsafeRawBufferPointer(subkey),
                                           nonce: innerNonce.baseAddress!.assumingMemoryBound(to: UInt8.self), authenticating: additionalData,
                                           reusing: context)
            }
        }
        guard authentic else { throw refused }
    }

    private static func check(key: SecureBytes, nonce: UnsafeRawBufferPointer) throws {
        try Sodium.ensureInitialized()
        try checkSizes(key: key, nonce: nonce)
    }

    private static func checkSizes(key: SecureBytes, nonce: UnsafeRawBufferPointer) throws {
        guard key.count == keySize else {
            throw CryptoVaultError(.invalidKeySize, "XChaCha20-Poly1305 needs a \(keySize)-byte key, not \(key.count) bytes")
        }
        guard nonce.count == nonceSize, nonce.baseAddress != nil else {
            throw CryptoVaultError(.invalidNonceSize, "XChaCha20-Poly1305 needs a \(nonceSize)-byte nonce, not \(nonce.count) bytes")
        }
    }
}
