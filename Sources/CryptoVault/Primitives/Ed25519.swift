internal import CSodium

/// An Ed25519 signing key (RFC 8032). The secret lives only in `SecureBytes`.
public struct Ed25519PrivateKey: Sendable {
    public static let seedSize = 32

    /// The 32-byte seed from which everything else is derived; store this to keep the key.
    public let seed: SecureBytes
    /// The 32-byte public key, to give to verifiers.
    public let publicKey: [UInt8]
    /// libsodium's 64-byte expanded form (seed || public key), kept so signing does not redo the derivation.
    private let secretKey: SecureBytes

    /// A fresh key from the operating system's CSPRNG.
    public init() throws {
        try self.init(seed: SecureBytes.random(count: Self.seedSize))
    }

    /// The key determined by a 32-byte `seed` (`.invalidKeySize` otherwise).
    public init(seed: SecureBytes) throws {
        try Sodium.ensureInitialized()
        guard seed.count == Self.seedSize else {
            throw CryptoVaultError(.invalidKeySize, "an Ed25519 seed is \(Self.seedSize) bytes, not \(seed.count)")
        }
        let secretKey = try SecureBytes(count: Int(crypto_sign_SECRETKEYBYTES))
        var publicKey = [UInt8](repeating: 0, count: Ed25519.publicKeySize)
        let status = publicKey.withUnsafeMutableBytes { publicKey in
            secretKey.withUnsafeMutableBytes { secretKey in
                seed.withUnsafeBytes { crypto_sign_seed_keypair(publicKey.sodiumBytes, secretKey.sodiumBytes, $0.sodiumBytes) }
            }
        }
        guard status == 0 else { throw CryptoVaultError(.invalidInput, "could not derive an Ed25519 key pair") }
        // Copy the seed so that the caller may let theirs go without affecting this key.
        self.seed = try seed.slice(0..<seed.count)
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// The 64-byte deterministic signature of `message`.
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Ed25519.signatureSize)
        let status = signature.withUnsafeMutableBytes { signature in
            message.withUnsafeBytes { message in
                secretKey.withUnsafeBytes { secretKey in
                    crypto_sign_detached(signature.sodiumBytes, nil, message.sodiumBytes, UInt64(message.count),
                                         secretKey.sodiumBytes)
                }
            }
        }
        guard status == 0 else { throw CryptoVaultError(.invalidInput, "Ed25519 signing failed") }
        return signature
    }
}

/// Ed25519 signature verification.
public enum Ed25519 {
    public static let publicKeySize = 32
    public static let signatureSize = 64

    /// Whether `signature` is a valid signature of `message` by `publicKey`.
    ///
    /// Lengths are checked first (no trailing or missing bytes are tolerated). libsodium then also
    /// rejects non-canonical S (malleable signatures), small-order R and public keys, and
    /// non-canonical public key encodings. Any failure, including libsodium being unavailable, is `false`.
    public static func isValidSignature(_ signature: [UInt8], for message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureSize, publicKey.count == publicKeySize else { return false }
        do { try Sodium.ensureInitialized() } catch { return false }
        return signature.withUnsafeBytes { signature in
            message.withUnsafeBytes { message in
                publicKey.withUnsafeBytes { publicKey in
                    crypto_sign_verify_detached(signature.sodiumBytes, message.sodiumBytes, UInt64(message.count),
                                                publicKey.sodiumBytes) == 0
                }
            }
        }
    }
}
