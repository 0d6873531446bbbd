@testable import CryptoVault
import Testing
import TestSupport

/// SHA-256 runs on libcrypto here, and on libsodium where libcrypto cannot provide it: the fallback
/// must give the same digests, or an audit log written on one machine would not verify on another.
@Suite struct SHA256FallbackTests {
    @Test("libcrypto computes SHA-256 on this machine")
    func libcryptoIsUsed() {
        #expect(SHA256.usesLibcrypto)
    }

    @Test("libsodium's fallback gives the FIPS 180-2 answer at every split and libcrypto's digest at every length")
    func fallbackMatches() throws {
        func sodium(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: SHA256.digestSize)
            first.withUnsafeBytes { a in second.withUnsafeBytes { b in digest.withUnsafeMutableBytes { SHA256.sodiumHash(a, b, into: $0) } } }
            return digest
        }
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        let expected: [UInt8] = [0x24, 0x8d, 0x6a, 0x61, 0xd2, 0x06, 0x38, 0xb8, 0xe5, 0xc0, 0x26, 0x93, 0x0c, 0x3e, 0x60, 0x39,
                                 0xa3, 0x3c, 0xe4, 0x59, 0x64, 0xff, 0x21, 0x67, 0xf6, 0xec, 0xed, 0xd4, 0x19, 0xdb, 0x06, 0xc1]
        for split in 0...message.count {
            #expect(sodium(Array(message[..<split]), Array(message[split...])) == expected, "split at \(split)")
        }
        for length in 0...300 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
            #expect(sodium(bytes, []) == SHA256.hash(bytes), "length \(length)")
        }
    }
}
