@testable import CryptoVault
import Testing
import TestSupport

/// `HMACSHA256Key` (the audit log's detail hashes) must give exactly `HMAC.sha256`'s tags: a detail
/// hash that differed would make every `vaultctl audit hash` answer wrong for entries written since.
@Suite struct HMACSHA256KeyTests {
    @Test("RFC 4231 test cases 2 and 6 (a short key, and a key longer than a block)")
    func rfc4231() throws {
        let jefe = try HMACSHA256Key(try SecureBytes(copying: Array("Jefe".utf8)))
        #expect(jefe.tag(Array("what do ya want for nothing?".utf8))
                == [UInt8](hex: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
        let long = try HMACSHA256Key(try SecureBytes(copying: [UInt8](repeating: 0xaa, count: 131)))
        #expect(long.tag(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
                == [UInt8](hex: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"))
    }

    @Test("the same tag as HMAC.sha256 for keys of 0 to 200 bytes and messages of 0 to 300", arguments: [0, 1, 31, 32, 33, 63, 64, 65, 127, 128, 200])
    func agreesWithHMAC(keyLength: Int) throws {
        let keyBytes = (0..<keyLength).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let key = try SecureBytes(copying: keyBytes)
        let prepared = try HMACSHA256Key(key)
        for length in [0, 1, 32, 55, 56, 63, 64, 65, 119, 120, 300] {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ keyLength) }
            #expect(prepared.tag(message) == HMAC.sha256(key: key, message: message), "key \(keyLength) bytes, message \(length) bytes")
        }
    }
}
