import CryptoVault
import Testing
import TestSupport

/// The bundle payload cipher runs on libcrypto when it can and on libsodium otherwise; both engines
/// must be RFC 8439 ChaCha20-Poly1305 to the byte, or a bundle sealed on one machine would not open on
/// another. Each engine runs every Wycheproof case it can take, and the two are compared directly.
@Suite struct BulkChaChaPolyTests {
    static let engines: [BulkChaChaPoly.Engine] = [.openSSL, .sodium]

    @Test("libcrypto is what seals bundles on this machine")
    func libcryptoIsPreferred() {
        #expect(BulkChaChaPoly.preferredEngine == .openSSL)
    }

    @Test("Every Wycheproof ChaCha20-Poly1305 case with a 96-bit nonce, on both engines",
          .enabled(if: Wycheproof.isAvailable), arguments: engines)
    func wycheproof(engine: BulkChaChaPoly.Engine) throws {
        let file = try Wycheproof.load("chacha20_poly1305_test.json", as: AEADTestGroup.self)
        var ran = 0, otherNonceSizes = 0
        for group in file.testGroups {
            for test in group.tests {
                // The bundle cipher takes exactly 12 nonce bytes (a pointer, not an array); the cases
                // with other sizes test a size check it does not have, and ChaChaPolyTests runs them.
                guard test.iv.bytes.count == BulkChaChaPoly.nonceSize else { otherNonceSizes += 1; continue }
                check(test, engine: engine)
                ran += 1
            }
        }
        print("Wycheproof chacha20_poly1305 on \(engine): ran \(ran), \(otherNonceSizes) with other nonce sizes")
        #expect(ran + otherNonceSizes == file.numberOfTests)
        #expect(ran > 250)
    }

    /// A reader of many records keeps one libcrypto context (`BulkChaChaPoly.Context`), rekeyed per
    /// message: every case through that one context, forgeries between genuine ones, must answer as
    /// a fresh context does, or a refused record could poison the next one's open.
    @Test("Every Wycheproof case through one reused libcrypto context, in file order", .enabled(if: Wycheproof.isAvailable))
    func wycheproofThroughOneReusedContext() throws {
        let file = try Wycheproof.load("chacha20_poly1305_test.json", as: AEADTestGroup.self)
        let context = BulkChaChaPoly.Context()
        var ran = 0, refused = 0
        for test in file.testGroups.flatMap(\.tests) where test.iv.bytes.count == BulkChaChaPoly.nonceSize {
            check(test, engine: .openSSL, reusing: context)
            ran += 1
            if test.result != .valid { refused += 1 }
        }
        #expect(ran > 250)
        #expect(refused > 50)
    }

    private func check(_ test: AEADTestCase, engine: BulkChaChaPoly.Engine, reusing context: BulkChaChaPoly.Context? = nil) {
        let label = Comment(rawValue: "tcId \(test.tcId) (\(test.comment))")
        let published = test.ct.bytes + test.tag.bytes
        switch test.result {
        case .valid:
            #expect(seal(test.msg.bytes, key: test.key.bytes, nonce: test.iv.bytes, aad: test.aad.bytes, engine) == published, label)
            #expect(open(published, key: test.key.bytes, nonce: test.iv.bytes, aad: test.aad.bytes, engine, reusing: context) == test.msg.bytes, label)
        case .invalid, .acceptable:
            #expect(open(published, key: test.key.bytes, nonce: test.iv.bytes, aad: test.aad.bytes, engine, reusing: context) == nil, label)
        }
    }

    @Test("Both engines produce the same bytes at every length around block and chunk edges")
    func enginesAgree() throws {
        let key = try SecureRandom.bytes(32), nonce = try SecureRandom.bytes(12)
        let lengths = Array(0...300) + [4095, 4096, 4097, 65_535, 65_536, 65_537, (1 << 20) + 7]
        for length in lengths {
            let plaintext = try SecureRandom.bytes(length)
            let aad = length % 3 == 0 ? [] : try SecureRandom.bytes(length % 40)
            let fromLibcrypto = seal(plaintext, key: key, nonce: nonce, aad: aad, .openSSL)
            let fromSodium = seal(plaintext, key: key, nonce: nonce, aad: aad, .sodium)
            #expect(fromLibcrypto == fromSodium, "length \(length)")
            #expect(open(fromSodium, key: key, nonce: nonce, aad: aad, .openSSL) == plaintext, "length \(length)")
            #expect(open(fromLibcrypto, key: key, nonce: nonce, aad: aad, .sodium) == plaintext, "length \(length)")
        }
    }

    @Test("Any flipped bit is refused and leaves the output zeroed", arguments: engines)
    func flippedBits(engine: BulkChaChaPoly.Engine) throws {
        let key = try SecureRandom.bytes(32), nonce = try SecureRandom.bytes(12)
        let plaintext = [UInt8](repeating: 0xA5, count: 80)
        let sealed = seal(plaintext, key: key, nonce: nonce, aad: [], engine)
        for bit in 0..<(sealed.count * 8) {
            var altered = sealed
            altered[bit / 8] ^= 1 << (bit % 8)
            var output = [UInt8](repeating: 0xEE, count: plaintext.count)
            let authentic = altered.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { out in
                    key.withUnsafeBytes { key in
                        BulkChaChaPoly.open(input, into: out, key: key, nonce: nonce, engine: engine)
                    }
                }
            }
            #expect(!authentic, "bit \(bit)")
            #expect(output == [UInt8](repeating: 0, count: plaintext.count), "bit \(bit): output not wiped")
        }
    }

    private func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8], _ engine: BulkChaChaPoly.Engine) -> [UInt8] {
        var sealed = [UInt8](repeating: 0, count: plaintext.count + BulkChaChaPoly.tagSize)
        plaintext.withUnsafeBytes { input in
            sealed.withUnsafeMutableBytes { output in
                key.withUnsafeBytes { key in
                    aad.withUnsafeBytes { aad in
                        BulkChaChaPoly.seal(input, into: output, key: key, nonce: nonce, authenticating: aad, engine: engine)
                    }
                }
            }
        }
        return sealed
    }

    /// The plaintext, or nil when the engine refuses the sealed bytes.
    private func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], aad: [UInt8], _ engine: BulkChaChaPoly.Engine,
                      reusing context: BulkChaChaPoly.Context? = nil) -> [UInt8]? {
        var plaintext = [UInt8](repeating: 0, count: sealed.count - BulkChaChaPoly.tagSize)
        let authentic = sealed.withUnsafeBytes { input in
            plaintext.withUnsafeMutableBytes { output in
                key.withUnsafeBytes { key in
                    aad.withUnsafeBytes { aad in
                        BulkChaChaPoly.open(input, into: output, key: key, nonce: nonce, authenticating: aad, engine: engine, reusing: context)
                    }
                }
            }
        }
        return authentic ? plaintext : nil
    }
}
