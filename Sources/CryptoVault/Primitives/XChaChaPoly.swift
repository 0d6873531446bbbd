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
}
