internal import CSodium

/// ChaCha20-Poly1305 in its IETF form (RFC 8439): 32-byte key, 12-byte nonce, 16-byte tag.
///
/// A 12-byte nonce is too short to draw at random for many messages under one key, so use this only
/// where a key seals a single message or the nonce is a counter; otherwise prefer `XChaChaPoly`.
/// Sealed output is `ciphertext || tag`.
public enum ChaChaPoly {
    public static let keySize = 32
    public static let nonceSize = 12
    public static let tagSize = 16

    static var construction: SodiumAEAD {
        SodiumAEAD(name: "ChaCha20-Poly1305", nonceSize: nonceSize,
                   messageBytesMax: crypto_aead_chacha20poly1305_ietf_messagebytes_max(),
                   encrypt: crypto_aead_chacha20poly1305_ietf_encrypt,
                   decrypt: crypto_aead_chacha20poly1305_ietf_decrypt)
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

    /// `sealSecret` whose output is itself a secret (Noise's REKEY takes its new key from a ciphertext),
    /// written straight into locked memory.
    public static func sealSecretToSecret(_ plaintext: SecureBytes, key: SecureBytes, nonce: [UInt8],
                                          authenticating additionalData: [UInt8] = []) throws -> SecureBytes {
        try plaintext.withUnsafeBytes { try construction.sealToSecret($0, key: key, nonce: nonce, additionalData: additionalData) }
    }

    /// `open` that decrypts straight into locked memory, so the plaintext never sits in an ordinary array.
    public static func openSecret(_ sealed: [UInt8], key: SecureBytes, nonce: [UInt8],
                                  authenticating additionalData: [UInt8] = []) throws -> SecureBytes {
        try construction.openSecret(sealed, key: key, nonce: nonce, additionalData: additionalData)
    }
}

/// The checks and buffer handling shared by libsodium's combined-mode AEADs (`ChaChaPoly`,
/// `XChaChaPoly`): both take a 32-byte key, append a 16-byte tag, and have identical C signatures.
struct SodiumAEAD {
    typealias Encrypt = (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt64>?,
                         UnsafePointer<UInt8>?, UInt64, UnsafePointer<UInt8>?, UInt64,
                         UnsafePointer<UInt8>?, UnsafePointer<UInt8>, UnsafePointer<UInt8>) -> Int32
    typealias Decrypt = (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt64>?,
                         UnsafeMutablePointer<UInt8>?, UnsafePointer<UInt8>, UInt64,
                         UnsafePointer<UInt8>?, UInt64, UnsafePointer<UInt8>, UnsafePointer<UInt8>) -> Int32

    static let keySize = 32
    static let tagSize = 16

    let name: String
    let nonceSize: Int
    let maximumMessageSize: Int
    let encrypt: Encrypt
    let decrypt: Decrypt

    /// `messageBytesMax` is libsodium's `..._messagebytes_max()`, a `size_t` that Swift imports as `Int`:
    /// for XChaCha20-Poly1305 it is SIZE_MAX - 16, which arrives negative, so it is reread as unsigned.
    init(name: String, nonceSize: Int, messageBytesMax: Int, encrypt: @escaping Encrypt, decrypt: @escaping Decrypt) {
        self.name = name
        self.nonceSize = nonceSize
        self.maximumMessageSize = Int(clamping: UInt(bitPattern: messageBytesMax))
        self.encrypt = encrypt
        self.decrypt = decrypt
    }

    func seal(_ plaintext: UnsafeRawBufferPointer, key: SecureBytes, nonce: [UInt8],
              additionalData: [UInt8]) throws -> [UInt8] {
        try validate(key: key, nonce: nonce, plaintextCount: plaintext.count)
        var sealed = [UInt8](repeating: 0, count: plaintext.count + Self.tagSize)
        try sealed.withUnsafeMutableBytes {
            try encryptMessage(plaintext, into: $0, key: key, nonce: nonce, additionalData: additionalData)
        }
        return sealed
    }

    /// `seal` into locked memory, for a ciphertext that is itself a secret.
    func sealToSecret(_ plaintext: UnsafeRawBufferPointer, key: SecureBytes, nonce: [UInt8],
                      additionalData: [UInt8]) throws -> SecureBytes {
        try validate(key: key, nonce: nonce, plaintextCount: plaintext.count)
        let sealed = try SecureBytes(count: plaintext.count + Self.tagSize)
        try sealed.withUnsafeMutableBytes {
            try encryptMessage(plaintext, into: $0, key: key, nonce: nonce, additionalData: additionalData)
        }
        return sealed
    }

    func open(_ sealed: [UInt8], key: SecureBytes, nonce: [UInt8], additionalData: [UInt8]) throws -> [UInt8] {
        let count = try plaintextCount(of: sealed, key: key, nonce: nonce)
        var plaintext = [UInt8](repeating: 0, count: count)
        try plaintext.withUnsafeMutableBytes {
            try decrypt(sealed, into: $0, key: key, nonce: nonce, additionalData: additionalData)
        }
        return plaintext
    }

    func openSecret(_ sealed: [UInt8], key: SecureBytes, nonce: [UInt8], additionalData: [UInt8]) throws -> SecureBytes {
        let count = try plaintextCount(of: sealed, key: key, nonce: nonce)
        let plaintext = try SecureBytes(count: count)
        try plaintext.withUnsafeMutableBytes {
            try decrypt(sealed, into: $0, key: key, nonce: nonce, additionalData: additionalData)
        }
        return plaintext
    }

    /// Checks sizes before any work. Key and nonce sizes are not secret, so they get their own errors.
    private func validate(key: SecureBytes, nonce: [UInt8]) throws {
        try Sodium.ensureInitialized()
        guard key.count == Self.keySize else {
            throw CryptoVaultError(.invalidKeySize, "\(name) needs a \(Self.keySize)-byte key, not \(key.count) bytes")
        }
        guard nonce.count == nonceSize else {
            throw CryptoVaultError(.invalidNonceSize, "\(name) needs a \(nonceSize)-byte nonce, not \(nonce.count) bytes")
        }
    }

    /// libsodium aborts the process on an oversized message; refuse it with an error instead.
    private func validate(key: SecureBytes, nonce: [UInt8], plaintextCount: Int) throws {
        try validate(key: key, nonce: nonce)
        guard plaintextCount <= maximumMessageSize else {
            throw CryptoVaultError(.invalidInput, "\(name): message of \(plaintextCount) bytes is too long")
        }
    }

    private func encryptMessage(_ plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                         key: SecureBytes, nonce: [UInt8], additionalData: [UInt8]) throws {
        let status = withArguments(key: key, nonce: nonce, additionalData: additionalData) { key, nonce, ad in
            encrypt(output.sodiumBytes, nil, plaintext.sodiumBytes, UInt64(plaintext.count),
                    ad.sodiumBytes, UInt64(ad.count), nil, nonce, key)
        }
        guard status == 0 else { throw CryptoVaultError(.invalidInput, "\(name): encryption failed") }
    }

    /// Input too short to hold a tag cannot be authentic; say so the same way as for a wrong tag.
    private func plaintextCount(of sealed: [UInt8], key: SecureBytes, nonce: [UInt8]) throws -> Int {
        try validate(key: key, nonce: nonce)
        guard sealed.count >= Self.tagSize else { throw authenticationFailure }
        return sealed.count - Self.tagSize
    }

    /// libsodium checks the tag before decrypting anything and zeroes the output on failure, so a
    /// rejected message leaves no plaintext behind; the caller then drops the buffer and throws.
    private func decrypt(_ sealed: [UInt8], into output: UnsafeMutableRawBufferPointer, key: SecureBytes,
                         nonce: [UInt8], additionalData: [UInt8]) throws {
        let status = sealed.withUnsafeBytes { input in
            withArguments(key: key, nonce: nonce, additionalData: additionalData) { key, nonce, ad in
                decrypt(output.sodiumBytes, nil, nil, input.sodiumBytes, UInt64(input.count),
                        ad.sodiumBytes, UInt64(ad.count), nonce, key)
            }
        }
        guard status == 0 else { throw authenticationFailure }
    }

    private func withArguments<Result>(
        key: SecureBytes, nonce: [UInt8], additionalData: [UInt8],
        _ body: (UnsafePointer<UInt8>, UnsafePointer<UInt8>, UnsafeRawBufferPointer) -> Result
    ) -> Result {
        key.withUnsafeBytes { key in
            nonce.withUnsafeBytes { nonce in
                additionalData.withUnsafeBytes { body(key.sodiumBytes, nonce.sodiumBytes, $0) }
            }
        }
    }

    private var authenticationFailure: CryptoVaultError {
        CryptoVaultError(.authenticationFailure,
                         "\(name): the message is not authentic (altered, or wrong key, nonce or associated data)")
    }
}
