import Testing
import TestSupport
@testable import CryptoVault

/// All `size`-element subsets of `items`, in order.
private func subsets<T>(of items: [T], size: Int) -> [[T]] {
    guard size > 0 else { return [[]] }
    guard items.count >= size else { return [] }
    let rest = Array(items.dropFirst())
    return subsets(of: rest, size: size - 1).map { [items[0]] + $0 } + subsets(of: rest, size: size)
}

private func failure(_ body: () throws -> Void) -> CryptoVaultError? {
    do { try body() } catch let error as CryptoVaultError { return error } catch {}
    return nil
}

@Suite struct ShamirTests {
    // MARK: Reconstruction

    @Test func everyThresholdSubsetOfThreeOfFiveReconstructs() throws {
        let secret = try SecureBytes.random(count: 32)
        let shares = try Shamir.split(secret, threshold: 3, shares: 5)
        #expect(shares.map(\.index) == [1, 2, 3, 4, 5])
        #expect(shares.allSatisfy { $0.value.count == 32 })
        for size in 3...5 {
            for subset in subsets(of: shares, size: size) {
                #expect(try Shamir.combine(subset, threshold: 3) == secret, "shares \(subset.map(\.index))")
                #expect(try Shamir.combine(subset.reversed(), threshold: 3) == secret, "order must not matter")
            }
        }
    }

    @Test func fewerThanThresholdSharesAreRefused() throws {
        let shares = try Shamir.split(SecureBytes.random(count: 32), threshold: 3, shares: 5)
        for subset in subsets(of: shares, size: 2) {
            let error = failure { _ = try Shamir.combine(subset, threshold: 3) }
            #expect(error?.code == .insufficientShares)
            #expect(error?.message == "3 shares are needed, only 2 given")
        }
    }

    /// Interpolating k−1 points of a degree k−1 polynomial (by claiming a lower threshold) yields some
    /// other value, never the secret.
    @Test func everyBelowThresholdSubsetGivesAnotherValue() throws {
        let secret = try SecureBytes.random(count: 32)
        let shares = try Shamir.split(secret, threshold: 3, shares: 5)
        for subset in subsets(of: shares, size: 2) {
            #expect(try Shamir.combine(subset, threshold: 2) != secret, "shares \(subset.map(\.index))")
        }
    }

    @Test func twoOfTwo() throws {
        let secret = try SecureBytes(copying: Array("a secret".utf8))
        let shares = try Shamir.split(secret, threshold: 2, shares: 2)
        #expect(try Shamir.combine(shares, threshold: 2) == secret)
        #expect(shares[0].value != secret && shares[1].value != secret)
    }

    @Test(arguments: [2, 128, 255])
    func twoHundredFiftyFiveShares(threshold: Int) throws {
        let secret = try SecureBytes.random(count: 32)
        let shares = try Shamir.split(secret, threshold: threshold, shares: 255)
        #expect(shares.count == 255)
        #expect(Set(shares.map(\.index)).count == 255 && !shares.contains { $0.index == 0 })
        #expect(try Shamir.combine(shares, threshold: threshold) == secret)
        #expect(try Shamir.combine(Array(shares.suffix(threshold)), threshold: threshold) == secret)
    }

    @Test func aOneByteSecretWorks() throws {
        for value in [UInt8(0), 1, 0x80, 0xff] {
            let secret = try SecureBytes(copying: [value])
            let shares = try Shamir.split(secret, threshold: 2, shares: 3)
            #expect(try Shamir.combine([shares[2], shares[0]], threshold: 2) == secret)
        }
    }

    // MARK: Secrecy

    /// With threshold 2, one share byte is s + c·x for a uniform c, so it is uniform whatever s is:
    /// over many splits, the first share's byte takes all 256 values for two very different secrets.
    /// (6000 draws miss a given value with probability (255/256)^6000 ≈ 6·10^-11.)
    @Test(arguments: [UInt8(0x00), UInt8(0xff)])
    func oneShareOfTwoCoversEveryValue(secretByte: UInt8) throws {
        var seen = Set<UInt8>()
        let secret = try SecureBytes(copying: [secretByte])
        for _ in 0..<6000 {
            let shares = try Shamir.split(secret, threshold: 2, shares: 2)
            shares[0].value.withUnsafeBytes { _ = seen.insert($0[0]) }
        }
        #expect(seen.count == 256)
    }

    /// Perfect secrecy by construction: for one share (x, y) of a 2-of-n split and every candidate secret
    /// s there is exactly one line through (0, s) and (x, y), so y says nothing about s.
    @Test func oneShareIsConsistentWithEverySecret() {
        for x in UInt8(1)...255 {
            let y: UInt8 = 0xa7
            var slopes = Set<UInt8>()
            for candidate in UInt8.min...UInt8.max {
                let slope = GF256.multiply(y ^ candidate, GF256.inverse(x))
                if GF256.multiply(slope, x) ^ candidate != y { Issue.record("x \(x), secret \(candidate)") }
                slopes.insert(slope)
            }
            #expect(slopes.count == 256, "each secret needs its own coefficient (x = \(x))")
        }
    }

    // MARK: Field arithmetic

    @Test func multiplicationMatchesFIPS197() {
        #expect(GF256.multiply(0x57, 0x83) == 0xc1)
        #expect(GF256.multiply(0x57, 0x13) == 0xfe)
        #expect(GF256.multiply(0x57, 0x02) == 0xae)
        #expect(GF256.multiply(0x80, 0x02) == 0x1b)
    }

    @Test func multiplicationMatchesAReferenceAndInversesInvert() {
        /// Straightforward shift-and-add with branches, for comparison only.
        func reference(_ a: UInt8, _ b: UInt8) -> UInt8 {
            var result: UInt16 = 0
            for bit in 0..<8 where b >> bit & 1 == 1 { result ^= UInt16(a) << bit }
            for bit in stride(from: 14, through: 8, by: -1) where result >> bit & 1 == 1 { result ^= 0x11b << (bit - 8) }
            return UInt8(result)
        }
        for a in UInt8.min...UInt8.max {
            for b in UInt8.min...UInt8.max where GF256.multiply(a, b) != reference(a, b) {
                Issue.record("\(a) · \(b)")
            }
            if a != 0 { #expect(GF256.multiply(a, GF256.inverse(a)) == 1, "inverse of \(a)") }
        }
        #expect(GF256.inverse(0) == 0)
    }

    // MARK: Rejections

    struct BadSplit: Sendable, CustomTestStringConvertible {
        let threshold: Int, shares: Int, message: String
        var testDescription: String { "\(threshold) of \(shares)" }
    }

    @Test(arguments: [
        BadSplit(threshold: 1, shares: 5, message: "a threshold must be at least 2, got 1 (1 would copy the secret)"),
        BadSplit(threshold: 0, shares: 5, message: "a threshold must be at least 2, got 0 (1 would copy the secret)"),
        BadSplit(threshold: 4, shares: 3, message: "a threshold of 4 cannot exceed the 3 shares"),
        BadSplit(threshold: 2, shares: 256, message: "at most 255 shares are possible, asked for 256"),
        BadSplit(threshold: 2, shares: -1, message: "a threshold of 2 cannot exceed the -1 shares"),
    ])
    func impossibleSplitsAreRefused(_ bad: BadSplit) throws {
        let secret = try SecureBytes.random(count: 16)
        let error = failure { _ = try Shamir.split(secret, threshold: bad.threshold, shares: bad.shares) }
        #expect(error?.code == .invalidInput)
        #expect(error?.message == bad.message)
    }

    @Test func anEmptySecretIsRefused() throws {
        let error = failure { _ = try Shamir.split(SecureBytes(count: 0), threshold: 2, shares: 3) }
        #expect(error?.code == .invalidInput)
    }

    @Test func malformedShareSetsAreRefused() throws {
        let shares = try Shamir.split(SecureBytes.random(count: 16), threshold: 2, shares: 3)
        let zero = SecretShare(index: 0, value: shares[0].value)
        let short = SecretShare(index: 3, value: try shares[2].value.slice(0..<15))

        let indexZero = failure { _ = try Shamir.combine([zero, shares[1]], threshold: 2) }
        #expect(indexZero?.code == .invalidShare)
        #expect(indexZero?.message.contains("index 0") == true)

        let duplicate = failure { _ = try Shamir.combine([shares[1], shares[1]], threshold: 2) }
        #expect(duplicate?.code == .invalidShare)
        #expect(duplicate?.message == "share 2 is given twice")

        let mismatched = failure { _ = try Shamir.combine([shares[0], short], threshold: 2) }
        #expect(mismatched?.code == .invalidShare)
        #expect(mismatched?.message.contains("different lengths") == true)

        let empty = try SecretShare(index: 1, value: SecureBytes(count: 0))
        let emptyShares = failure { _ = try Shamir.combine([empty, SecretShare(index: 2, value: SecureBytes(count: 0))], threshold: 2) }
        #expect(emptyShares?.code == .invalidShare)

        let thresholdOne = failure { _ = try Shamir.combine(shares, threshold: 1) }
        #expect(thresholdOne?.code == .invalidInput)

        let none = failure { _ = try Shamir.combine([], threshold: 2) }
        #expect(none?.code == .insufficientShares)
    }
}
