import CryptoVault
import Testing
import TestSupport

/// Every case of the Wycheproof files for the primitives, each checked for its published outcome:
/// valid cases must succeed with the published output; invalid ones must be rejected for the right
/// reason (the error code) or, for MACs and signatures, must not verify; acceptable ones may go either
/// way, but any output produced must match. Each test counts the cases it ran and compares the count
/// with the file's `numberOfTests`, so no case is silently skipped.
///
/// The whole suite is skipped (with a loud notice, see `Wycheproof.isAvailable`) only when the vector
/// folder is absent; nothing else skips.
@Suite(.enabled(if: Wycheproof.isAvailable, "WYCHEPROOF VECTORS NOT FOUND: set VAULT_VECTORS_DIR or provide shared/vectors"))
struct WycheproofTests {
    // MARK: AEAD

    enum AEAD: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case chaCha20Poly1305 = "chacha20_poly1305_test.json"
        case xChaCha20Poly1305 = "xchacha20_poly1305_test.json"

        var testDescription: String { rawValue }
        var nonceSize: Int { self == .chaCha20Poly1305 ? ChaChaPoly.nonceSize : XChaChaPoly.nonceSize }

        func seal(_ test: AEADTestCase, key: SecureBytes) throws -> [UInt8] {
            switch self {
            case .chaCha20Poly1305: try ChaChaPoly.seal(test.msg.bytes, key: key, nonce: test.iv.bytes, authenticating: test.aad.bytes)
            case .xChaCha20Poly1305: try XChaChaPoly.seal(test.msg.bytes, key: key, nonce: test.iv.bytes, authenticating: test.aad.bytes)
            }
        }

        func sealSecret(_ test: AEADTestCase, key: SecureBytes) throws -> [UInt8] {
            let plaintext = try SecureBytes(copying: test.msg.bytes)
            return switch self {
            case .chaCha20Poly1305: try ChaChaPoly.sealSecret(plaintext, key: key, nonce: test.iv.bytes, authenticating: test.aad.bytes)
            case .xChaCha20Poly1305: try XChaChaPoly.sealSecret(plaintext, key: key, nonce: test.iv.bytes, authenticating: test.aad.bytes)
            }
        }

        func open(_ test: AEADTestCase, key: SecureBytes) throws -> [UInt8] {
            let sealed = test.ct.bytes + test.tag.bytes
            return switch self {
            case .chaCha20Poly1305: try ChaChaPoly.open(sealed, key: key, nonce: test.iv.bytes, authenticating: test.aad.bytes)
            case .xChaCha20Poly1305: try XChaChaPoly.open(sealed, key: key, nonce: test.iv.bytes, authenticating: test.aad.bytes)
            }
        }

        func openSecret(_ test: AEADTestCase, key: SecureBytes) throws -> SecureBytes {
            let sealed = test.ct.bytes + test.tag.bytes
            return switch self {
            case .chaCha20Poly1305: try ChaChaPoly.openSecret(sealed, key: key, nonce: test.iv.bytes, authenticating: test.aad.bytes)
            case .xChaCha20Poly1305: try XChaChaPoly.openSecret(sealed, key: key, nonce: test.iv.bytes, authenticating: test.aad.bytes)
            }
        }
    }

    @Test("AEAD vectors", arguments: AEAD.allCases)
    func aead(_ aead: AEAD) throws {
        let file = try Wycheproof.load(aead.rawValue, as: AEADTestGroup.self)
        let ran = runEveryCase(of: file, named: aead.rawValue, cases: \.tests, id: \.tcId) { _, test in
            try checkAEAD(aead, test)
        }
        #expect(ran == file.numberOfTests)
    }

    private func checkAEAD(_ aead: AEAD, _ test: AEADTestCase) throws {
        let key = try SecureBytes(copying: test.key.bytes)
        let published = test.ct.bytes + test.tag.bytes
        let label = Comment(rawValue: "tcId \(test.tcId) (\(test.comment))")
        // A nonce of the wrong size is refused before any work, with its own error code.
        guard test.iv.bytes.count == aead.nonceSize else {
            #expect(test.result == .invalid, label)
            let wrongNonce = CryptoVaultError(.invalidNonceSize, "")
            #expect(throws: wrongNonce, label) { try aead.seal(test, key: key) }
            #expect(throws: wrongNonce, label) { try aead.open(test, key: key) }
            #expect(throws: wrongNonce, label) { try aead.openSecret(test, key: key) }
            return
        }
        switch test.result {
        case .valid:
            #expect(try aead.seal(test, key: key) == published, label)
            #expect(try aead.sealSecret(test, key: key) == published, label)
            #expect(try aead.open(test, key: key) == test.msg.bytes, label)
            #expect(try aead.openSecret(test, key: key).exposedCopy() == test.msg.bytes, label)
        case .invalid:
            // The published ciphertext||tag is not what sealing produces, and opening it is refused.
            #expect(try aead.seal(test, key: key) != published, label)
            let forged = CryptoVaultError(.authenticationFailure, "")
            #expect(throws: forged, label) { try aead.open(test, key: key) }
            #expect(throws: forged, label) { try aead.openSecret(test, key: key) }
        case .acceptable:
            do { #expect(try aead.open(test, key: key) == test.msg.bytes, label) } catch let error as CryptoVaultError {
                #expect(error.code == .authenticationFailure, label)
            }
        }
    }

    // MARK: Ed25519

    @Test("Ed25519 vectors")
    func ed25519() throws {
        let name = "ed25519_test.json"
        let file = try Wycheproof.load(name, as: EdDSATestGroup.self)
        let ran = runEveryCase(of: file, named: name, cases: \.tests, id: \.tcId) { group, test in
            #expect(group.publicKey.curve == "edwards25519")
            let verified = Ed25519.isValidSignature(test.sig.bytes, for: test.msg.bytes, publicKey: group.publicKey.pk.bytes)
            let label = Comment(rawValue: "tcId \(test.tcId) (\(test.comment)) \(test.flags)")
            switch test.result {
            case .valid: #expect(verified, label)
            case .invalid: #expect(!verified, label)
            case .acceptable: break // either verdict is allowed; there is no output to compare
            }
        }
        #expect(ran == file.numberOfTests)
    }

    // MARK: X25519

    @Test("X25519 vectors")
    func x25519() throws {
        let name = "x25519_test.json"
        let file = try Wycheproof.load(name, as: XDHTestGroup.self)
        var acceptedAcceptable = 0, rejectedAcceptable = 0
        let ran = runEveryCase(of: file, named: name, cases: \.tests, id: \.tcId) { group, test in
            #expect(group.curve == "curve25519")
            let accepted = try checkX25519(test)
            if test.result == .acceptable { if accepted { acceptedAcceptable += 1 } else { rejectedAcceptable += 1 } }
        }
        print("Wycheproof \(name): acceptable cases accepted \(acceptedAcceptable), rejected \(rejectedAcceptable)")
        #expect(ran == file.numberOfTests)
    }

    /// Returns whether the shared secret was computed. Our contract is stricter than "acceptable":
    /// an all-zero shared secret (a low-order peer key) must always be refused with `.invalidPublicKey`.
    private func checkX25519(_ test: XDHTestCase) throws -> Bool {
        let key = try X25519PrivateKey(rawRepresentation: SecureBytes(copying: test.privateKey.bytes))
        let label = Comment(rawValue: "tcId \(test.tcId) (\(test.comment)) \(test.flags)")
        let expectsZero = test.shared.bytes.allSatisfy { $0 == 0 }
        do {
            let shared = try key.sharedSecret(with: test.publicKey.bytes)
            #expect(test.result != .invalid, label)
            #expect(!expectsZero, "an all-zero shared secret was returned: \(label)")
            #expect(shared.exposedCopy() == test.shared.bytes, label)
            return true
        } catch let error as CryptoVaultError {
            #expect(error.code == .invalidPublicKey, label)
            #expect(test.result != .valid, "a valid case was refused: \(label)")
            #expect(expectsZero, "refused although the shared secret is not all-zero: \(label)")
            return false
        }
    }

    // MARK: HKDF

    @Test("HKDF-SHA-256 vectors")
    func hkdf() throws {
        let name = "hkdf_sha256_test.json"
        let file = try Wycheproof.load(name, as: HKDFTestGroup.self)
        let ran = runEveryCase(of: file, named: name, cases: \.tests, id: \.tcId) { _, test in
            let label = Comment(rawValue: "tcId \(test.tcId) (\(test.comment))")
            let inputKeyMaterial = try SecureBytes(copying: test.ikm.bytes)
            let derive = {
                try HKDF.deriveKey(inputKeyMaterial: inputKeyMaterial, salt: test.salt.bytes,
                                   info: test.info.bytes, outputCount: test.size)
            }
            switch test.result {
            case .valid:
                #expect(try derive().exposedCopy() == test.okm.bytes, label)
            case .invalid:
                // All invalid HKDF cases ask for more than 255 * HashLen bytes.
                #expect(throws: CryptoVaultError(.invalidInput, ""), label) { try derive() }
            case .acceptable:
                do { #expect(try derive().exposedCopy() == test.okm.bytes, label) } catch let error as CryptoVaultError {
                    #expect(error.code == .invalidInput, label)
                }
            }
        }
        #expect(ran == file.numberOfTests)
    }

    // MARK: HMAC

    enum MAC: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sha256 = "hmac_sha256_test.json"
        case sha512 = "hmac_sha512_test.json"

        var testDescription: String { rawValue }

        func tag(key: SecureBytes, message: [UInt8]) -> [UInt8] {
            self == .sha256 ? HMAC.sha256(key: key, message: message) : HMAC.sha512(key: key, message: message)
        }

        func secretTag(key: SecureBytes, message: [UInt8]) throws -> SecureBytes {
            try self == .sha256 ? HMAC.sha256Secret(key: key, message: message) : HMAC.sha512Secret(key: key, message: message)
        }

        func isValid(tag: [UInt8], key: SecureBytes, message: [UInt8]) -> Bool {
            self == .sha256 ? HMAC.isValidSHA256(tag: tag, key: key, message: message)
                : HMAC.isValidSHA512(tag: tag, key: key, message: message)
        }
    }

    @Test("HMAC vectors", arguments: MAC.allCases)
    func hmac(_ mac: MAC) throws {
        let file = try Wycheproof.load(mac.rawValue, as: MACTestGroup.self)
        let ran = runEveryCase(of: file, named: mac.rawValue, cases: \.tests, id: \.tcId) { group, test in
            try checkMAC(mac, group: group, test)
        }
        #expect(ran == file.numberOfTests)
    }

    /// Groups with a `tagSize` below the digest size carry truncated tags: the published tag is the
    /// prefix of the full HMAC. All of them are at least half the digest, the floor `isValid…` accepts.
    private func checkMAC(_ mac: MAC, group: MACTestGroup, _ test: MACTestCase) throws {
        let label = Comment(rawValue: "tcId \(test.tcId) (\(test.comment)) tagSize \(group.tagSize)")
        let key = try SecureBytes(copying: test.key.bytes)
        let tagCount = group.tagSize / 8
        #expect(test.tag.bytes.count == tagCount, label)
        let computed = Array(mac.tag(key: key, message: test.msg.bytes).prefix(tagCount))
        let computedSecret = Array(try mac.secretTag(key: key, message: test.msg.bytes).exposedCopy().prefix(tagCount))
        let verified = mac.isValid(tag: test.tag.bytes, key: key, message: test.msg.bytes)
        switch test.result {
        case .valid:
            #expect(computed == test.tag.bytes, label)
            #expect(computedSecret == test.tag.bytes, label)
            #expect(verified, label)
        case .invalid:
            // Rejected because the tag differs, not because of its length (which is an accepted one).
            #expect(computed != test.tag.bytes, label)
            #expect(!verified, label)
        case .acceptable:
            #expect(verified == (computed == test.tag.bytes), label)
        }
    }

    // MARK: Running

    /// Runs `check` on every case of `file`. A case whose check throws unexpectedly is recorded as a
    /// failure of that case and the run continues, so one bad case cannot hide the others. Returns the
    /// number of cases run, for comparison with `numberOfTests`.
    private func runEveryCase<Group, Case>(
        of file: WycheproofFile<Group>, named name: String, cases: (Group) -> [Case], id: (Case) -> Int,
        _ check: (Group, Case) throws -> Void
    ) -> Int {
        var ran = 0
        for group in file.testGroups {
            for test in cases(group) {
                do { try check(group, test) } catch { Issue.record("tcId \(id(test)): unexpected error \(error)") }
                ran += 1
            }
        }
        print("Wycheproof \(name) (\(file.algorithm)): ran \(ran) of \(file.numberOfTests) cases")
        return ran
    }
}
