import CryptoVault
import Testing

/// SipHash-2-4 (the leak guard's shingle PRF) and the secret-output BLAKE2b finish that derives its key.
struct SipHashTests {
    /// The example of the SipHash paper (Aumasson and Bernstein, 2012), Appendix A: key 00 01 ... 0f,
    /// message 00 01 ... 0e (15 bytes), output a129ca6149be45e5 (the 64-bit value).
    @Test func thePaperExample() throws {
        let key = try SipHash.Key(SecureBytes(copying: (0..<16).map { UInt8($0) }))
        let message = (0..<15).map { UInt8($0) }
        #expect(SipHash.hash(message, key: key) == 0xa129_ca61_49be_45e5)
        let bound = message.withUnsafeBytes { message in key.withHashFunction { hash in hash(message) } }
        #expect(bound == 0xa129_ca61_49be_45e5)
    }

    @Test(arguments: [0, 15, 17, 32])
    func keysOfAnotherSizeAreRefused(size: Int) throws {
        let secret = try SecureBytes(count: size)
        #expect(throws: CryptoVaultError(.invalidKeySize, "")) { try SipHash.Key(secret) }
    }

    @Test func blake2bSecretFinishEqualsThePlainFinish() throws {
        let key = try SecureBytes(copying: [UInt8](repeating: 9, count: 32))
        var plain = try BLAKE2b.Hasher(outputCount: 16, key: key)
        var secret = try BLAKE2b.Hasher(outputCount: 16, key: key)
        plain.update(Array("label".utf8))
        secret.update(Array("label".utf8))
        #expect(try secret.finalizeSecret().exposedCopy() == (try plain.finalize()))
    }
}
