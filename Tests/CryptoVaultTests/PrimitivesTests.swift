import CryptoVault
import Testing
import TestSupport

/// Known answers and behaviours of the primitives beyond what Wycheproof covers.
struct PrimitivesTests {
    // MARK: SecureBytes

    @Test func secureBytesEqualityComparesContentsAndLength() throws {
        let secret = try SecureBytes(copying: [1, 2, 3, 4])
        #expect(secret == (try SecureBytes(copying: [1, 2, 3, 4])))
        #expect(secret != (try SecureBytes(copying: [1, 2, 3, 5])))
        #expect(secret != (try SecureBytes(copying: [1, 2, 3])))
        #expect(try SecureBytes(count: 0) == (try SecureBytes(copying: [])))
        #expect(constantTimeEquals([9, 8], [9, 8]))
        #expect(!constantTimeEquals([9, 8], [9, 7]))
        #expect(!constantTimeEquals([9, 8], [9]))
    }

    @Test func secureBytesNeverPrintsItsContents() throws {
        // Distinctive bytes whose decimal (165, 195) and hex (a5, c3) forms would stand out in any rendering.
        let secret = try SecureBytes(copying: [0xA5, 0x5A, 0xC3, 0x3C])
        var dumped = ""
        dump(secret, to: &dumped)
        let renderings = ["\(secret)", String(describing: secret), String(reflecting: secret),
                          "\([secret])", "\(Optional(secret) as Any)", dumped]
        for text in renderings {
            #expect(text.contains("SecureBytes"), "\(text)")
            for leak in ["165", "195", "a5", "c3", "A5", "C3"] { #expect(!text.contains(leak), "\(text) reveals \(leak)") }
        }
        #expect("\(secret)" == "SecureBytes(4 bytes)")
        #expect(Mirror(reflecting: secret).children.isEmpty)
    }

    // MARK: Random

    @Test func secureRandomBytesAndUniform() throws {
        #expect(try SecureRandom.bytes(0) == [])
        let first = try SecureRandom.bytes(32), second = try SecureRandom.bytes(32)
        #expect(first.count == 32 && first != second)
        #expect(throws: CryptoVaultError(.invalidInput, "")) { try SecureRandom.bytes(-1) }
        #expect(throws: CryptoVaultError(.invalidInput, "")) { try SecureRandom.uniform(0) }
        #expect(try SecureRandom.uniform(1) == 0)
        for _ in 0..<100 { #expect(try SecureRandom.uniform(10) < 10) }
    }

    // MARK: Hashes

    @Test func sha2KnownAnswers() throws {
        // FIPS 180-2 / NIST examples: the empty string and "abc".
        #expect(SHA256.hash([]) == (try hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")))
        #expect(SHA256.hash(Array("abc".utf8)) == (try hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")))
        #expect(SHA512.hash([]) == (try hex("cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e")))
        #expect(SHA512.hash(Array("abc".utf8)) == (try hex("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")))
    }

    @Test func incrementalHashersMatchOneShot() throws {
        let message = Array(0..<200).map { UInt8($0) }
        var sha256 = SHA256.Hasher(), sha512 = SHA512.Hasher()
        var blake = try BLAKE2b.Hasher(outputCount: 48)
        for chunk in stride(from: 0, to: message.count, by: 37).map({ Array(message[$0..<min($0 + 37, message.count)]) }) {
            sha256.update(chunk)
            sha512.update(chunk)
            blake.update(chunk)
        }
        #expect(sha256.finalize() == SHA256.hash(message))
        #expect(sha512.finalize() == SHA512.hash(message))
        #expect(try blake.finalize() == (try BLAKE2b.hash(message, outputCount: 48)))
    }

    @Test("SHA-256 of two parts in place equals the known answer at every split, on several threads at once")
    func sha256OfTwoPartsInPlace() async throws {
        // FIPS 180-2's two-block example (448 bits): every split point, empty parts included, hashes the
        // same message; the in-place hash keeps one context per thread, so threads must not disturb each other.
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        let expected = try hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        @Sendable func inPlace(split: Int) -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: SHA256.digestSize)
            message.withUnsafeBytes { bytes in
                digest.withUnsafeMutableBytes { SHA256.hash(UnsafeRawBufferPointer(rebasing: bytes[..<split]),
                                                            UnsafeRawBufferPointer(rebasing: bytes[split...]), into: $0) }
            }
            return digest
        }
        for split in 0...message.count { #expect(inPlace(split: split) == expected, "split at \(split)") }
        let results = await withTaskGroup(of: Bool.self) { group in
            for thread in 0..<4 {
                group.addTask { (0..<500).allSatisfy { inPlace(split: ($0 + thread) % (message.count + 1)) == expected } }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == [true, true, true, true])
    }

    @Test func blake2bKnownAnswers() throws {
        // RFC 7693 Appendix A ("abc", 64 bytes) and the empty-string BLAKE2b-512 digest.
        #expect(try BLAKE2b.hash([], outputCount: 64) == (try hex("786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce")))
        #expect(try BLAKE2b.hash(Array("abc".utf8), outputCount: 64) == (try hex("ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")))
        #expect(try BLAKE2b.hash([]) == (try hex("0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")))
        // Keyed with the bytes 0...31 (cross-checked with Python's hashlib.blake2b).
        let key = try SecureBytes(copying: (0..<32).map { UInt8($0) })
        #expect(try BLAKE2b.hash(Array("abc".utf8), key: key) == (try hex("d63a32d3e44738d7907f964316c241adaba0abfeabc32349677578a15a203f7f")))
    }

    @Test func blake2bRefusesSizesOutsideTheDocumentedRanges() throws {
        #expect(throws: CryptoVaultError(.invalidInput, "")) { try BLAKE2b.hash([], outputCount: 15) }
        #expect(throws: CryptoVaultError(.invalidInput, "")) { try BLAKE2b.hash([], outputCount: 65) }
        let shortKey = try SecureBytes(count: 8)
        #expect(throws: CryptoVaultError(.invalidKeySize, "")) { try BLAKE2b.hash([], key: shortKey) }
    }

    // MARK: HMAC and HKDF

    @Test func hmacTruncatedTagsNeedHalfTheDigest() throws {
        let key = try SecureBytes(copying: Array(repeating: 0x0b, count: 20))
        let message = Array("Hi There".utf8)
        let tag = HMAC.sha256(key: key, message: message)
        // RFC 4231 test case 1.
        #expect(tag == (try hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")))
        #expect(HMAC.isValidSHA256(tag: tag, key: key, message: message))
        #expect(HMAC.isValidSHA256(tag: Array(tag.prefix(16)), key: key, message: message))
        #expect(!HMAC.isValidSHA256(tag: Array(tag.prefix(15)), key: key, message: message))
        #expect(!HMAC.isValidSHA256(tag: [], key: key, message: message))
        #expect(!HMAC.isValidSHA256(tag: tag + [0], key: key, message: message))
        let tag512 = HMAC.sha512(key: key, message: message)
        #expect(HMAC.isValidSHA512(tag: Array(tag512.prefix(32)), key: key, message: message))
        #expect(!HMAC.isValidSHA512(tag: Array(tag512.prefix(31)), key: key, message: message))
    }

    @Test func hkdfRFC5869TestCase1() throws {
        let inputKeyMaterial = try SecureBytes(copying: Array(repeating: 0x0b, count: 22))
        let salt = try hex("000102030405060708090a0b0c"), info = try hex("f0f1f2f3f4f5f6f7f8f9")
        let pseudoRandomKey = try HKDF.extract(salt: salt, inputKeyMaterial: inputKeyMaterial)
        #expect(pseudoRandomKey.exposedCopy() == (try hex("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")))
        let expected = try hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        #expect(try HKDF.expand(pseudoRandomKey: pseudoRandomKey, info: info, outputCount: 42).exposedCopy() == expected)
        #expect(try HKDF.deriveKey(inputKeyMaterial: inputKeyMaterial, salt: salt, info: info, outputCount: 42).exposedCopy() == expected)
    }

    @Test func hkdfRefusesBadSizes() throws {
        let key = try SecureBytes(count: 32)
        #expect(throws: CryptoVaultError(.invalidInput, "")) { try HKDF.expand(pseudoRandomKey: key, info: [], outputCount: 0) }
        #expect(throws: CryptoVaultError(.invalidInput, "")) { try HKDF.deriveKey(inputKeyMaterial: key, salt: [], info: [], outputCount: 8161) }
        #expect(throws: CryptoVaultError(.invalidKeySize, "")) {
            try HKDF.expand(pseudoRandomKey: try SecureBytes(count: 16), info: [], outputCount: 32)
        }
    }

    // MARK: AEAD

    @Test(arguments: [false, true])
    func secretAEADRoundTrip(extendedNonce: Bool) throws {
        let key = try SecureBytes.random(count: 32)
        let secret = try SecureBytes.random(count: 32)
        let nonce = try SecureRandom.bytes(extendedNonce ? XChaChaPoly.nonceSize : ChaChaPoly.nonceSize)
        let context = Array("keyslot 1".utf8)
        let seal = extendedNonce ? XChaChaPoly.sealSecret : ChaChaPoly.sealSecret
        let open = extendedNonce ? XChaChaPoly.openSecret : ChaChaPoly.openSecret
        let sealed = try seal(secret, key, nonce, context)
        #expect(sealed.count == secret.count + 16)
        #expect(try open(sealed, key, nonce, context) == secret)

        let forged = CryptoVaultError(.authenticationFailure, "")
        #expect(throws: forged) { try open(sealed, key, nonce, Array("keyslot 2".utf8)) }
        #expect(throws: forged) { try open(sealed, try SecureBytes.random(count: 32), nonce, context) }
        #expect(throws: forged) { try open(Array(sealed.prefix(15)), key, nonce, context) }
        var flipped = sealed
        flipped[0] ^= 1
        #expect(throws: forged) { try open(flipped, key, nonce, context) }
        #expect(throws: CryptoVaultError(.invalidKeySize, "")) { try seal(secret, try SecureBytes.random(count: 16), nonce, context) }
        #expect(throws: CryptoVaultError(.invalidNonceSize, "")) { try open(sealed, key, nonce + [0], context) }
    }

    @Test func aeadSealsAndOpensEmptyMessages() throws {
        let key = try SecureBytes.random(count: 32)
        let nonce = try SecureRandom.bytes(XChaChaPoly.nonceSize)
        let sealed = try XChaChaPoly.seal([], key: key, nonce: nonce)
        #expect(sealed.count == XChaChaPoly.tagSize)
        #expect(try XChaChaPoly.open(sealed, key: key, nonce: nonce) == [])
        #expect(try XChaChaPoly.openSecret(sealed, key: key, nonce: nonce).count == 0)
    }

    // MARK: Signatures and key agreement

    @Test func ed25519RFC8032TestVector1AndRoundTrip() throws {
        let seed = try SecureBytes(copying: try hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        let key = try Ed25519PrivateKey(seed: seed)
        #expect(key.publicKey == (try hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")))
        #expect(key.seed == seed)
        let signature = try key.signature(for: [])
        #expect(signature == (try hex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")))
        #expect(Ed25519.isValidSignature(signature, for: [], publicKey: key.publicKey))

        let fresh = try Ed25519PrivateKey()
        let message = Array("transfer 10 to alice".utf8)
        let freshSignature = try fresh.signature(for: message)
        #expect(Ed25519.isValidSignature(freshSignature, for: message, publicKey: fresh.publicKey))
        #expect(!Ed25519.isValidSignature(freshSignature, for: Array("transfer 99 to alice".utf8), publicKey: fresh.publicKey))
        #expect(!Ed25519.isValidSignature(freshSignature, for: message, publicKey: key.publicKey))
        #expect(!Ed25519.isValidSignature(freshSignature + [0], for: message, publicKey: fresh.publicKey))
        #expect(!Ed25519.isValidSignature(Array(freshSignature.dropLast()), for: message, publicKey: fresh.publicKey))
        #expect(throws: CryptoVaultError(.invalidKeySize, "")) { try Ed25519PrivateKey(seed: try SecureBytes(count: 31)) }
    }

    @Test func x25519RFC7748KeyAgreement() throws {
        let alice = try X25519PrivateKey(rawRepresentation: SecureBytes(copying: try hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")))
        let bob = try X25519PrivateKey(rawRepresentation: SecureBytes(copying: try hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")))
        #expect(alice.publicKey == (try hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")))
        #expect(bob.publicKey == (try hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")))
        let shared = try hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
        #expect(try alice.sharedSecret(with: bob.publicKey).exposedCopy() == shared)
        #expect(try bob.sharedSecret(with: alice.publicKey).exposedCopy() == shared)
        // The identity point (u = 0) has low order: the result would be all zeros, so it is refused.
        #expect(throws: CryptoVaultError(.invalidPublicKey, "")) { try alice.sharedSecret(with: [UInt8](repeating: 0, count: 32)) }
        #expect(throws: CryptoVaultError(.invalidPublicKey, "")) { try alice.sharedSecret(with: [UInt8](repeating: 9, count: 31)) }
        #expect(throws: CryptoVaultError(.invalidKeySize, "")) { try X25519PrivateKey(rawRepresentation: try SecureBytes(count: 16)) }
    }
}
