import CryptoVault
import Testing
import TestSupport

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

    /// The Swift two-word form must be SipHash-2-4 itself: the paper's 16-byte vector (Appendix A
    /// key, message 00 ... 0f, from the reference implementation's table) and libsodium's answer for
    /// many random keys and messages.
    @Test func theTwoWordFormIsSipHashOfSixteenBytes() throws {
        let paperKey = try SipHash.Key(SecureBytes(copying: (0..<16).map { UInt8($0) }))
        let paperValue = paperKey.withHashFunction { hash in hash(0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908) }
        #expect(paperValue == 0x3f2a_cc7f_57c2_9bdb)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let key = try SipHash.Key(SecureBytes.random(count: 16))
            let (first, second) = (generator.next() as UInt64, generator.next() as UInt64)
            let message = withUnsafeBytes(of: first.littleEndian, Array.init) + withUnsafeBytes(of: second.littleEndian, Array.init)
            #expect(key.withHashFunction { hash in hash(first, second) } == SipHash.hash(message, key: key))
        }
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
