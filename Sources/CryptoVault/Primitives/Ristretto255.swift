internal import CSodium

/// The ristretto255 prime-order group (RFC 9496) through libsodium's `crypto_core_ristretto255` and
/// `crypto_scalarmult_ristretto255`.
///
/// Elements travel as their canonical 32-byte encodings. Scalars are secrets, and so is an element
/// derived from a password (a CPace generator), so both are taken and returned as `SecureBytes`;
/// a peer's element arrives as an ordinary array and is copied in. The group has prime order, so
/// there is no cofactor to clear: the only element a peer can abuse is the identity, which
/// `multiply` refuses.
public enum Ristretto255 {
    /// The size of an element's encoding.
    public static let elementSize = 32
    /// The size of a scalar's encoding (little-endian, below the group order).
    public static let scalarSize = 32
    /// The input of the one-way map: 64 uniformly random bytes, typically a SHA-512 digest.
    public static let mapInputSize = 64

    /// The element that the one-way map of RFC 9496 §4.3.4 assigns to `uniformBytes` (64 bytes), as
    /// libsodium's `crypto_core_ristretto255_from_hash` computes it.
    public static func elementFromUniformBytes(_ uniformBytes: SecureBytes) throws -> SecureBytes {
        try Sodium.ensureInitialized()
        guard uniformBytes.count == mapInputSize else {
            throw CryptoVaultError(.invalidInput, "the ristretto255 map takes \(mapInputSize) bytes, not \(uniformBytes.count)")
        }
        let element = try SecureBytes(count: elementSize)
        let status = element.withUnsafeMutableBytes { element in
            uniformBytes.withUnsafeBytes { crypto_core_ristretto255_from_hash(element.sodiumBytes, $0.sodiumBytes) }
        }
        guard status == 0 else { throw CryptoVaultError(.invalidInput, "the ristretto255 map failed") }
        return element
    }

    /// Whether `encoding` is the canonical encoding of a group element, the identity included
    /// (libsodium's `is_valid_point` accepts the identity's 32 zero bytes).
    public static func isCanonicalEncoding(_ encoding: SecureBytes) -> Bool {
        guard encoding.count == elementSize, (try? Sodium.ensureInitialized()) != nil else { return false }
        return encoding.withUnsafeBytes { crypto_core_ristretto255_is_valid_point($0.sodiumBytes) } == 1
    }

    /// A uniformly random scalar in 1...order-1, in locked memory.
    public static func randomScalar() throws -> SecureBytes {
        let scalar = try SecureBytes(count: scalarSize)
        // libsodium draws until the scalar is non-zero and below the order.
        scalar.withUnsafeMutableBytes { crypto_core_ristretto255_scalar_random($0.sodiumBytes) }
        return scalar
    }

    /// `scalar` times `element`, in locked memory.
    ///
    /// Throws `.invalidPublicKey` when `element` is not a canonical encoding, and `.invalidInput` when
    /// the product is the identity. For a scalar in 1...order-1 the product is the identity exactly
    /// when the element is: the element a peer would send to force a result known in advance.
    public static func multiply(_ scalar: SecureBytes, _ element: SecureBytes) throws -> SecureBytes {
        guard scalar.count == scalarSize else {
            throw CryptoVaultError(.invalidKeySize, "a ristretto255 scalar is \(scalarSize) bytes, not \(scalar.count)")
        }
        guard isCanonicalEncoding(element) else {
            throw CryptoVaultError(.invalidPublicKey, "not the canonical encoding of a ristretto255 element")
        }
        let product = try SecureBytes(count: elementSize)
        let status = product.withUnsafeMutableBytes { product in
            scalar.withUnsafeBytes { scalar in
                element.withUnsafeBytes { crypto_scalarmult_ristretto255(product.sodiumBytes, scalar.sodiumBytes, $0.sodiumBytes) }
            }
        }
        // The element decoded above, so -1 here means one thing: the product encodes to the identity.
        guard status == 0 else {
            throw CryptoVaultError(.invalidInput, "the ristretto255 product is the identity element")
        }
        return product
    }
}
