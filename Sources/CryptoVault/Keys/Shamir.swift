/// One share of a secret split with `Shamir.split`: the value of a random polynomial at `index`.
///
/// The index is public (it is printed on the share); the value is secret. Valid indices are 1...255:
/// the polynomial's value at 0 is the secret itself, so `combine` refuses index 0.
public struct SecretShare: Sendable {
    public let index: UInt8
    public let value: SecureBytes

    public init(index: UInt8, value: SecureBytes) {
        self.index = index
        self.value = value
    }
}

/// Shamir secret sharing over GF(2^8) with the AES polynomial x^8 + x^4 + x^3 + x + 1 (0x11b), byte by
/// byte: any `threshold` shares rebuild the secret, and fewer reveal nothing about it (each byte of the
/// secret is the constant term of its own random polynomial of degree threshold − 1).
public enum Shamir {
    /// Splits `secret` into `shares` shares, any `threshold` of which rebuild it.
    ///
    /// Requires 2 ≤ threshold ≤ shares ≤ 255. A threshold of 1 would hand every holder a plain copy of
    /// the secret, so it is refused rather than silently allowed.
    public static func split(_ secret: SecureBytes, threshold: Int, shares: Int) throws -> [SecretShare] {
        try checkCounts(threshold: threshold, shares: shares)
        guard secret.count > 0 else {
            throw CryptoVaultError(.invalidInput, "there is no secret to split: it is empty")
        }
        // Coefficients 1...threshold−1 of every byte's polynomial, uniformly random (zero included, which
        // is what makes fewer than `threshold` shares carry no information). Wiped when released.
        let coefficients = try SecureBytes.random(count: (threshold - 1) * secret.count)
        return try (1...shares).map { x in
            let index = UInt8(x)  // x ≤ 255, checked above.
            let value = try evaluate(secret: secret, coefficients: coefficients, degree: threshold - 1, at: index)
            return SecretShare(index: index, value: value)
        }
    }

    /// Rebuilds the secret from at least `threshold` shares by Lagrange interpolation at x = 0.
    ///
    /// Throws `.insufficientShares` for fewer than `threshold` shares, and `.invalidShare` for index 0,
    /// a repeated index or shares of different lengths. Wrong-but-well-formed shares give a wrong secret;
    /// the caller detects that by the key failing to unwrap its slot.
    public static func combine(_ shares: [SecretShare], threshold: Int) throws -> SecureBytes {
        try checkCounts(threshold: threshold, shares: 255)
        guard shares.count >= threshold else {
            throw CryptoVaultError(.insufficientShares, "\(threshold) shares are needed, only \(shares.count) given")
        }
        let length = try checkShares(shares)
        let indices = shares.map(\.index)
        let weights = indices.indices.map { lagrangeWeightAtZero(for: $0, indices: indices) }
        let secret = try SecureBytes(count: length)
        secret.withUnsafeMutableBytes { output in
            for (share, weight) in zip(shares, weights) {
                share.value.withUnsafeBytes { values in
                    for position in 0..<length {
                        output[position] ^= GF256.multiply(values[position], weight)
                    }
                }
            }
        }
        return secret
    }

    // MARK: Checks

    private static func checkCounts(threshold: Int, shares: Int) throws {
        guard threshold >= 2 else {
            throw CryptoVaultError(.invalidInput, "a threshold must be at least 2, got \(threshold) (1 would copy the secret)")
        }
        guard shares <= 255 else {
            throw CryptoVaultError(.invalidInput, "at most 255 shares are possible, asked for \(shares)")
        }
        guard threshold <= shares else {
            throw CryptoVaultError(.invalidInput, "a threshold of \(threshold) cannot exceed the \(shares) shares")
        }
    }

    /// The common share length, after refusing index 0, repeated indices and unequal or empty lengths.
    private static func checkShares(_ shares: [SecretShare]) throws -> Int {
        let length = shares.first?.value.count ?? 0
        var seen = Set<UInt8>()
        for share in shares {
            guard share.index != 0 else {
                throw CryptoVaultError(.invalidShare, "share index 0 is not a share: it would be the secret")
            }
            guard seen.insert(share.index).inserted else {
                throw CryptoVaultError(.invalidShare, "share \(share.index) is given twice")
            }
            guard share.value.count == length, length > 0 else {
                throw CryptoVaultError(.invalidShare, "the shares have different lengths (or are empty)")
            }
        }
        return length
    }

    // MARK: Arithmetic

    /// The share at `x`: for every byte, Horner's rule on secret + c1·x + … + c_degree·x^degree.
    private static func evaluate(
        secret: SecureBytes, coefficients: SecureBytes, degree: Int, at x: UInt8
    ) throws -> SecureBytes {
        let value = try SecureBytes(count: secret.count)
        value.withUnsafeMutableBytes { output in
            secret.withUnsafeBytes { secretBytes in
                coefficients.withUnsafeBytes { coefficientBytes in
                    for position in 0..<secretBytes.count {
                        // Highest coefficient first; coefficient k of byte `position` is at (k−1)·count + position.
                        var accumulator: UInt8 = 0
                        for k in stride(from: degree, through: 1, by: -1) {
                            let coefficient = coefficientBytes[(k - 1) * secretBytes.count + position]
                            accumulator = GF256.multiply(accumulator, x) ^ coefficient
                        }
                        output[position] = GF256.multiply(accumulator, x) ^ secretBytes[position]
                    }
                }
            }
        }
        return value
    }

    /// ℓ_j(0) = ∏_{m≠j} x_m / (x_m − x_j); subtraction is XOR in GF(2^8). Indices are public and
    /// distinct, so the denominator is never zero.
    private static func lagrangeWeightAtZero(for j: Int, indices: [UInt8]) -> UInt8 {
        var numerator: UInt8 = 1
        var denominator: UInt8 = 1
        for (m, xm) in indices.enumerated() where m != j {
            numerator = GF256.multiply(numerator, xm)
            denominator = GF256.multiply(denominator, xm ^ indices[j])
        }
        return GF256.multiply(numerator, GF256.inverse(denominator))
    }
}

/// GF(2^8) modulo 0x11b in constant time: no table lookups and no branches on the operands, because
/// share bytes and secret bytes pass through here and cache timing must not reveal them.
enum GF256 {
    /// Russian-peasant multiplication with masks in place of branches.
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var a = a
        var b = b
        var product: UInt8 = 0
        for _ in 0..<8 {
            product ^= a & (0 &- (b & 1))          // add a when the low bit of b is set
            let reduce = 0 &- (a >> 7)              // 0xff when a·x overflows degree 7
            a = (a << 1) ^ (0x1b & reduce)
            b >>= 1
        }
        return product
    }

    /// a^254 = a^−1 for a ≠ 0 (the multiplicative group has order 255); 0 maps to 0. A fixed chain of
    /// squarings and multiplications, independent of the value.
    static func inverse(_ a: UInt8) -> UInt8 {
        // 254 = 0b11111110: square-and-multiply over the bits gives a^2 · a^4 · … · a^128.
        var result: UInt8 = 1
        var power = a
        for _ in 1...7 {
            power = multiply(power, power)
            result = multiply(result, power)
        }
        return result
    }
}
