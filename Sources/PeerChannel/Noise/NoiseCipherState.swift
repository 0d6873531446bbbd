import CryptoVault

/// The CipherState of the Noise Protocol Framework (revision 34, §5.1) with ChaChaPoly: a key `k`
/// (or none) and a 64-bit counter `n` that is the nonce of the next message.
///
/// The nonce is never sent: each side counts, so a replayed, dropped or reordered message arrives
/// under the wrong nonce and fails authentication. A failed decryption leaves `n` unchanged (§5.1).
/// Nonce 2^64-1 is reserved for `rekey` and never used for a message, so a state refuses to work
/// once `n` reaches it.
struct NoiseCipherState: Sendable {
    /// The nonce §5.1 reserves; also the nonce of REKEY.
    static let reservedNonce = UInt64.max
    /// ChaChaPoly's tag, added to every message once a key is set.
    static let tagSize = ChaChaPoly.tagSize

    // The key is replaced, never written into, so copies of this struct never share a changing key.
    private var key: SecureBytes?
    private(set) var nonce: UInt64 = 0

    /// InitializeKey(k): a new key and a nonce of zero; `nil` is the empty key of a fresh handshake.
    init(key: SecureBytes? = nil) {
        self.key = key
    }

    var hasKey: Bool { key != nil }

    /// SetNonce(n), for tests only: a transport must never choose its nonces.
    mutating func setNonce(_ nonce: UInt64) {
        self.nonce = nonce
    }

    /// EncryptWithAd(ad, plaintext): the plaintext itself while there is no key, otherwise
    /// ENCRYPT(k, n++, ad, plaintext). The cipher is libcrypto's vectorised ChaCha20-Poly1305 where it
    /// loads (`BulkChaChaPoly`, the same bytes as libsodium's), since the channel carries bulk data.
    mutating func encrypt(_ plaintext: [UInt8], associatedData: [UInt8]) throws(PeerChannelError) -> [UInt8] {
        try encrypt(plaintext[...], associatedData: associatedData)
    }

    /// `encrypt` of part of a larger buffer (a record of a long message), without copying it out first.
    mutating func encrypt(_ plaintext: ArraySlice<UInt8>, associatedData: [UInt8]) throws(PeerChannelError) -> [UInt8] {
        guard hasKey else { return Array(plaintext) }
        var sealed = [UInt8](repeating: 0, count: plaintext.count + Self.tagSize)
        try sealed.withUnsafeMutableBytes { output in
            plaintext.withUnsafeBytes { input in
                Result { () throws(PeerChannelError) in try encrypt(input, into: output, associatedData: associatedData) }
            }
        }.get()
        return sealed
    }

    /// ENCRYPT(k, n++, ad, plaintext) written straight into `output` (plaintext.count + 16 bytes: a
    /// frame being assembled for the socket), so a bulk transfer allocates nothing per message.
    /// Only for a state with a key: a transport always has one.
    mutating func encrypt(_ plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                          associatedData: [UInt8]) throws(PeerChannelError) {
        guard let key else { throw PeerChannelError(.invalidConfiguration, "in-place sealing needs a key") }
        let nonceBytes = try nextNonce()
        key.withUnsafeBytes { keyBytes in
            associatedData.withUnsafeBytes { additional in
                BulkChaChaPoly.seal(plaintext, into: output, key: keyBytes, nonce: nonceBytes, authenticating: additional)
            }
        }
        nonce += 1
    }

    /// DecryptWithAd(ad, ciphertext). A message that fails authentication throws `failure` and does
    /// not advance the nonce; nothing of its plaintext is returned.
    mutating func decrypt(_ ciphertext: [UInt8], associatedData: [UInt8],
                          failure: PeerChannelErrorCode) throws(PeerChannelError) -> [UInt8] {
        guard hasKey else { return ciphertext }
        // A message shorter than a tag is refused by the in-place decryption, as not authentic.
        var plaintext = [UInt8](repeating: 0, count: max(0, ciphertext.count - Self.tagSize))
        try plaintext.withUnsafeMutableBytes { output in
            ciphertext.withUnsafeBytes { input in
                Result { () throws(PeerChannelError) in try decrypt(input, into: output, associatedData: associatedData, failure: failure) }
            }
        }.get()
        return plaintext
    }

    /// DecryptWithAd written straight into `output` (ciphertext.count − 16 bytes: the buffer of the
    /// message being reassembled). On failure `output` is zeroed, the nonce stays, and `failure` is
    /// thrown. Only for a state with a key.
    mutating func decrypt(_ ciphertext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                          associatedData: [UInt8], failure: PeerChannelErrorCode) throws(PeerChannelError) {
        guard let key else { throw PeerChannelError(.invalidConfiguration, "in-place opening needs a key") }
        let nonceBytes = try nextNonce()
        guard ciphertext.count >= Self.tagSize, output.count == ciphertext.count - Self.tagSize else { throw notAuthentic(failure) }
        let authentic = key.withUnsafeBytes { keyBytes in
            associatedData.withUnsafeBytes { additional in
                BulkChaChaPoly.open(ciphertext, into: output, key: keyBytes, nonce: nonceBytes, authenticating: additional)
            }
        }
        guard authentic else { throw notAuthentic(failure) }
        nonce += 1
    }

    private func notAuthentic(_ failure: PeerChannelErrorCode) -> PeerChannelError {
        PeerChannelError(failure, "a Noise message is not authentic at nonce \(nonce) (altered, replayed, reordered, or another key)")
    }

    /// Rekey(): k = the first 32 bytes of ENCRYPT(k, 2^64-1, empty, 32 zero bytes) (§4.2, §11.3).
    /// The nonce carries on; both sides must rekey at the same point in the message sequence.
    mutating func rekey() throws(PeerChannelError) {
        guard let key else { return }
        self.key = try PeerChannelError.wrappingPrimitives {
            let zeros = try SecureBytes(count: ChaChaPoly.keySize)
            let sealed = try ChaChaPoly.sealSecretToSecret(zeros, key: key, nonce: Self.nonceBytes(Self.reservedNonce))
            return try sealed.slice(0..<ChaChaPoly.keySize)
        }
    }

    /// The 12-byte ChaChaPoly nonce of §12.3: 32 zero bits, then `n` as 64 bits little-endian.
    static func nonceBytes(_ counter: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) }
    }

    private func nextNonce() throws(PeerChannelError) -> [UInt8] {
        guard nonce < Self.reservedNonce else {
            throw PeerChannelError(.nonceExhausted, "this cipher state has used every nonce; the channel must end")
        }
        return Self.nonceBytes(nonce)
    }
}
