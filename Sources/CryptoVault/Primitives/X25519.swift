internal import CSodium

/// An X25519 (RFC 7748) key-agreement key. The scalar lives only in `SecureBytes`.
public struct X25519PrivateKey: Sendable {
    public static let keySize = 32

    /// The 32-byte private scalar (clamped by libsodium at use), to store the key.
    public let rawRepresentation: SecureBytes
    /// The 32-byte public key, to give to the peer.
    public let publicKey: [UInt8]

    /// A fresh key from the operating system's CSPRNG.
    public init() throws {
        try self.init(rawRepresentation: SecureBytes.random(count: Self.keySize))
    }

    /// The key with this 32-byte scalar (`.invalidKeySize` otherwise).
    public init(rawRepresentation: SecureBytes) throws {
        try Sodium.ensureInitialized()
        guard rawRepresentation.count == Self.keySize else {
            throw CryptoVaultError(.invalidKeySize, "an X25519 private key is \(Self.keySize) bytes, not \(rawRepresentation.count)")
        }
        var publicKey = [UInt8](repeating: 0, count: Self.keySize)
        let status = publicKey.withUnsafeMutableBytes { publicKey in
            rawRepresentation.withUnsafeBytes { crypto_scalarmult_curve25519_base(publicKey.sodiumBytes, $0.sodiumBytes) }
        }
        guard status == 0 else { throw CryptoVaultError(.invalidInput, "could not derive an X25519 public key") }
        // Copy so that the caller may let theirs go without affecting this key.
        self.rawRepresentation = try rawRepresentation.slice(0..<rawRepresentation.count)
        self.publicKey = publicKey
    }

    /// The 32-byte shared secret with `peerPublicKey`, in locked memory.
    ///
    /// Throws `.invalidPublicKey` for a key that is not 32 bytes, and when libsodium reports an all-zero
    /// result: that happens exactly for low-order points, which let a malicious peer force a known
    /// "secret" (RFC 7748 §6.1). Use the result through a KDF, never directly as a key.
    public func sharedSecret(with peerPublicKey: [UInt8]) throws -> SecureBytes {
        guard peerPublicKey.count == Self.keySize else {
            throw CryptoVaultError(.invalidPublicKey, "an X25519 public key is \(Self.keySize) bytes, not \(peerPublicKey.count)")
        }
        let shared = try SecureBytes(count: Self.keySize)
        let status = shared.withUnsafeMutableBytes { shared in
            rawRepresentation.withUnsafeBytes { scalar in
                peerPublicKey.withUnsafeBytes {
                    crypto_scalarmult_curve25519(shared.sodiumBytes, scalar.sodiumBytes, $0.sodiumBytes)
                }
            }
        }
        guard status == 0 else {
            throw CryptoVaultError(.invalidPublicKey, "the peer's X25519 public key is a low-order point")
        }
        return shared
    }
}
