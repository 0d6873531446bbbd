import CryptoVault
import Testing
import TestSupport

/// The ristretto255 wrapper: the group laws a protocol relies on, and refusal of the elements a peer
/// could abuse. The draft-irtf-cfrg-cpace-21 vectors in PeerChannelTests check exact values.
struct Ristretto255Tests {
    private func randomElement() throws -> SecureBytes {
        try Ristretto255.elementFromUniformBytes(SecureBytes.random(count: Ristretto255.mapInputSize))
    }

    @Test func scalarMultiplicationCommutes() throws {
        let generator = try randomElement()
        let a = try Ristretto255.randomScalar(), b = try Ristretto255.randomScalar()
        let aG = try Ristretto255.multiply(a, generator), bG = try Ristretto255.multiply(b, generator)
        #expect(try Ristretto255.multiply(a, bG) == Ristretto255.multiply(b, aG))
        #expect(aG != bG)
    }

    @Test func mapOutputsAreCanonical() throws {
        for _ in 0..<16 { #expect(Ristretto255.isCanonicalEncoding(try randomElement())) }
    }

    @Test func theIdentityIsRefusedAsAFactor() throws {
        let identity = try SecureBytes(count: Ristretto255.elementSize)
        #expect(Ristretto255.isCanonicalEncoding(identity))
        #expect(throws: CryptoVaultError(.invalidInput, "")) { try Ristretto255.multiply(Ristretto255.randomScalar(), identity) }
    }

    /// 2^255 - 1 is not a field element below p = 2^255 - 19, so it has no canonical encoding; a
    /// negative field element (odd low bit) is not canonical either (RFC 9496 §4.3.1).
    @Test(arguments: [[UInt8](repeating: 0xFF, count: 31) + [0x7F], [0x01] + [UInt8](repeating: 0, count: 31)])
    func nonCanonicalEncodingsAreRefused(_ encoding: [UInt8]) throws {
        let element = try SecureBytes(copying: encoding)
        #expect(!Ristretto255.isCanonicalEncoding(element))
        #expect(throws: CryptoVaultError(.invalidPublicKey, "")) { try Ristretto255.multiply(Ristretto255.randomScalar(), element) }
    }

    @Test func wrongSizesAreRefused() throws {
        #expect(throws: CryptoVaultError(.invalidInput, "")) { try Ristretto255.elementFromUniformBytes(SecureBytes(count: 32)) }
        #expect(throws: CryptoVaultError(.invalidKeySize, "")) { try Ristretto255.multiply(SecureBytes(count: 31), self.randomElement()) }
        #expect(!Ristretto255.isCanonicalEncoding(try SecureBytes(count: 33)))
    }
}
