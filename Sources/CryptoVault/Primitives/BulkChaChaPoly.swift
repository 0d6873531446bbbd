internal import COpenSSL
internal import CSodium

/// ChaCha20-Poly1305 (RFC 8439) for bulk data: the cipher of every bundle chunk.
///
/// Why two libraries for one cipher: Debian 12's libsodium (1.0.18) has no vectorised ChaCha20 for
/// this AEAD, and sealing with it reaches only about 0.8× the throughput of `age` (whose Go code is
/// vectorised); OpenSSL 3's libcrypto has AVX2/AVX-512 assembly and is about twice as fast per core.
/// The output is the same bytes either way (RFC 8439 admits one answer, and a test compares the two
/// on every length up to several blocks and on the Wycheproof vectors), so libcrypto is used when it
/// loads and libsodium otherwise: a missing or misconfigured OpenSSL provider slows sealing, it never
/// stops it.
///
/// Key material: libcrypto copies the key into its cipher context, and freeing the context cleanses
/// that copy (OPENSSL_clear_free), so no key outlives a call, except in a `Context` a reader keeps
/// for a run of opens, which holds its last key until its next open or its end.
public enum BulkChaChaPoly {
    public static let keySize = 32
    public static let nonceSize = 12
    public static let tagSize = 16

    /// Where the work is done; `.openSSL` unless libcrypto could not provide the cipher.
    public enum Engine: Sendable { case openSSL, sodium }

    /// libcrypto's ChaCha20-Poly1305, fetched once: an implicit fetch on every call costs a lock.
    nonisolated(unsafe) private static let openSSLCipher: OpaquePointer? = EVP_CIPHER_fetch(nil, "ChaCha20-Poly1305", nil)

    public static var preferredEngine: Engine { openSSLCipher == nil ? .sodium : .openSSL }

    public static var noAdditionalData: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    /// Seals `plaintext` into `sealed` (plaintext.count + 16 bytes: ciphertext || tag), also
    /// authenticating `additionalData` (bundle chunks have none).
    public static func seal(_ plaintext: UnsafeRawBufferPointer, into sealed: UnsafeMutableRawBufferPointer,
                     key: UnsafeRawBufferPointer, nonce: UnsafePointer<UInt8>,
                     authenticating additionalData: UnsafeRawBufferPointer = noAdditionalData, engine: Engine = preferredEngine) {
        precondition(key.count == keySize && sealed.count == plaintext.count + tagSize, "bad ChaCha20-Poly1305 buffer sizes")
        if engine == .openSSL, let cipher = openSSLCipher,
           openSSLSeal(cipher, plaintext, into: sealed, key: key, nonce: nonce, additionalData: additionalData) {
            return
        }
        _ = crypto_aead_chacha20poly1305_ietf_encrypt(
            sealed.baseAddress!.assumingMemoryBound(to: UInt8.self), nil,
            plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
            additionalData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(additionalData.count),
            nil, nonce, key.baseAddress!.assumingMemoryBound(to: UInt8.self))
    }

    /// Verifies `sealed` (ciphertext || tag) and decrypts it into `plaintext` (sealed.count − 16
    /// bytes). Returns false, with `plaintext` zeroed, when the tag does not verify.
    /// `reusing` a `Context` keeps one libcrypto context across many opens (a reader of thousands of
    /// small records), which saves allocating, setting up and cleansing one per call.
    /// `engine` nil is `preferredEngine`.
    public static func open(_ sealed: UnsafeRawBufferPointer, into plaintext: UnsafeMutableRawBufferPointer,
                     key: UnsafeRawBufferPointer, nonce: UnsafePointer<UInt8>,
                     authenticating additionalData: UnsafeRawBufferPointer = noAdditionalData, engine: Engine? = nil,
                     reusing reused: Context? = nil) -> Bool {
        precondition(key.count == keySize && sealed.count == plaintext.count + tagSize, "bad ChaCha20-Poly1305 buffer sizes")
        // A reused context carries the cipher it fetched: reading the lazy global for every small
        // record went through swift_once each time.
        let cipher: OpaquePointer?
        if engine == .sodium { cipher = nil } else if let reused { cipher = reused.cipher } else { cipher = openSSLCipher }
        let authentic: Bool
        if let cipher,
           let verdict = openSSLOpen(cipher, sealed, into: plaintext, key: key, nonce: nonce, additionalData: additionalData, reusing: reused) {
            authentic = verdict
        } else {
            authentic = crypto_aead_chacha20poly1305_ietf_decrypt(
                plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil,
                sealed.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(sealed.count),
                additionalData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(additionalData.count),
                nonce, key.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
        }
        // libcrypto decrypts before it checks the tag; what it wrote must not survive a failure.
        if !authentic, let base = plaintext.baseAddress, plaintext.count > 0 { sodium_memzero(base, plaintext.count) }
        return authentic
    }

    /// Runs `body` with a fresh libcrypto context keyed for `key` and `nonce` that has absorbed
    /// `additionalData`; nil if libcrypto failed.
    /// A libcrypto context that outlives one call, for a caller that opens many messages in a row.
    /// It holds the last key it was given until the next call or its end; ending frees it, and
    /// libcrypto cleanses the key with it (OPENSSL_clear_free).
    public final class Context {
        fileprivate let context: OpaquePointer?
        fileprivate var hasCipher = false
        /// libcrypto's cipher (nil without it), fetched once when the context is made.
        fileprivate let cipher: OpaquePointer? = BulkChaChaPoly.openSSLCipher

        public init() { context = EVP_CIPHER_CTX_new() }

        deinit { EVP_CIPHER_CTX_free(context) }
    }

    /// Runs `body` with a libcrypto context keyed for `key` and `nonce` that has absorbed
    /// `additionalData`: `reused`'s if given (set up for the cipher once, rekeyed per call), a fresh
    /// one otherwise; nil if libcrypto failed.
    private static func withContext<Result>(_ cipher: OpaquePointer, encrypting: Bool, key: UnsafeRawBufferPointer,
                                            nonce: UnsafePointer<UInt8>, additionalData: UnsafeRawBufferPointer,
                                            reusing reused: Context? = nil,
                                            _ body: (OpaquePointer) -> Result?) -> Result? {
        let fresh = reused == nil ? EVP_CIPHER_CTX_new() : nil
        defer { if let fresh { EVP_CIPHER_CTX_free(fresh) } }
        guard let context = reused?.context ?? fresh else { return nil }
        // A context already set up for the cipher is only rekeyed: no fetch, no new provider context.
        let cipherToSet = reused?.hasCipher == true ? nil : cipher
        let keyBytes = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let ready = encrypting ? EVP_EncryptInit_ex2(context, cipherToSet, keyBytes, nonce, nil)
                               : EVP_DecryptInit_ex2(context, cipherToSet, keyBytes, nonce, nil)
        reused?.hasCipher = ready == 1
        guard ready == 1 else { return nil }
        if let additional = additionalData.baseAddress, !additionalData.isEmpty {
            // A null output pointer is libcrypto's way of saying "this is additional data".
            var absorbed: Int32 = 0
            let input = additional.assumingMemoryBound(to: UInt8.self)
            let status = encrypting ? EVP_EncryptUpdate(context, nil, &absorbed, input, Int32(additionalData.count))
                                    : EVP_DecryptUpdate(context, nil, &absorbed, input, Int32(additionalData.count))
            guard status == 1 else { return nil }
        }
        return body(context)
    }

    private static func openSSLSeal(_ cipher: OpaquePointer, _ plaintext: UnsafeRawBufferPointer, into sealed: UnsafeMutableRawBufferPointer,
                                    key: UnsafeRawBufferPointer, nonce: UnsafePointer<UInt8>, additionalData: UnsafeRawBufferPointer) -> Bool {
        withContext(cipher, encrypting: true, key: key, nonce: nonce, additionalData: additionalData) { context -> Bool? in
            let output = sealed.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var written: Int32 = 0
            var finalWritten: Int32 = 0
            // An empty chunk (the only chunk of an empty bundle) needs no update: a null input would
            // read as additional data.
            guard plaintext.isEmpty || EVP_EncryptUpdate(context, output, &written, plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                         Int32(plaintext.count)) == 1,
                  EVP_EncryptFinal_ex(context, output + Int(written), &finalWritten) == 1,
                  Int(written + finalWritten) == plaintext.count,
                  EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagSize), output + plaintext.count) == 1
            else { return nil }
            return true
        } ?? false
    }

    /// true: authentic; false: the tag does not verify; nil: libcrypto failed, ask libsodium.
    private static func openSSLOpen(_ cipher: OpaquePointer, _ sealed: UnsafeRawBufferPointer, into plaintext: UnsafeMutableRawBufferPointer,
                                    key: UnsafeRawBufferPointer, nonce: UnsafePointer<UInt8>, additionalData: UnsafeRawBufferPointer,
                                    reusing reused: Context?) -> Bool? {
        withContext(cipher, encrypting: false, key: key, nonce: nonce, additionalData: additionalData, reusing: reused) { context -> Bool? in
            let input = sealed.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let ciphertextCount = sealed.count - tagSize
            // The tag is only read by libcrypto, but its ctrl call takes a mutable pointer.
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagSize),
                                      UnsafeMutableRawPointer(mutating: input + ciphertextCount)) == 1 else { return nil }
            var written: Int32 = 0
            var finalWritten: Int32 = 0
            var spare: UInt8 = 0
            return withUnsafeMutablePointer(to: &spare) { spare in
                let output = plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? spare
                guard ciphertextCount == 0 || EVP_DecryptUpdate(context, output, &written, input, Int32(ciphertextCount)) == 1 else { return nil }
                return EVP_DecryptFinal_ex(context, output + Int(written), &finalWritten) == 1
            }
        }
    }
}
