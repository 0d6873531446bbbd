import CryptoVault

/// The SymmetricState of the Noise Protocol Framework (revision 34, §5.2) with BLAKE2b (HASHLEN 64,
/// BLOCKLEN 128): the chaining key `ck`, the handshake hash `h`, and the CipherState keyed from `ck`.
///
/// `ck` is a secret and lives in `SecureBytes`; `h` is a hash of public transcript data (it is what
/// both sides compare as the handshake hash), so it is an ordinary array.
struct NoiseSymmetricState: Sendable {
    static let hashSize = HMACBLAKE2b.digestSize

    private(set) var cipher = NoiseCipherState()
    private var chainingKey: SecureBytes
    private(set) var handshakeHash: [UInt8]

    /// InitializeSymmetric(protocol_name): h is the name zero-padded to HASHLEN when it fits,
    /// otherwise its hash; ck = h.
    init(protocolName: String) throws(PeerChannelError) {
        let name = Array(protocolName.utf8)
        handshakeHash = name.count <= Self.hashSize
            ? name + [UInt8](repeating: 0, count: Self.hashSize - name.count)
            : try PeerChannelError.wrappingPrimitives { try BLAKE2b.hash(name, outputCount: Self.hashSize) }
        let initialHash = handshakeHash
        chainingKey = try PeerChannelError.wrappingPrimitives { try SecureBytes(copying: initialHash) }
    }

    /// MixKey(ikm): ck, temp_k = HKDF(ck, ikm, 2); the cipher takes the first 32 bytes of temp_k.
    mutating func mixKey(_ inputKeyMaterial: SecureBytes) throws(PeerChannelError) {
        let outputs = try Self.hkdf(chainingKey: chainingKey, inputKeyMaterial: inputKeyMaterial, outputCount: 2)
        chainingKey = outputs[0]
        cipher = NoiseCipherState(key: try Self.cipherKey(outputs[1]))
    }

    /// MixHash(data): h = HASH(h || data).
    mutating func mixHash(_ data: [UInt8]) throws(PeerChannelError) {
        let current = handshakeHash
        handshakeHash = try PeerChannelError.wrappingPrimitives {
            try BLAKE2b.hash(current + data, outputCount: Self.hashSize)
        }
    }

    /// MixKeyAndHash(ikm): ck, temp_h, temp_k = HKDF(ck, ikm, 3); MixHash(temp_h); the cipher takes
    /// the first 32 bytes of temp_k. This is how a PSK enters (§9).
    mutating func mixKeyAndHash(_ inputKeyMaterial: SecureBytes) throws(PeerChannelError) {
        let outputs = try Self.hkdf(chainingKey: chainingKey, inputKeyMaterial: inputKeyMaterial, outputCount: 3)
        chainingKey = outputs[0]
        // temp_h enters the public handshake hash; it reveals nothing of ck through BLAKE2b.
        try mixHash(outputs[1].exposedCopy())
        cipher = NoiseCipherState(key: try Self.cipherKey(outputs[2]))
    }

    /// EncryptAndHash(plaintext): ciphertext = EncryptWithAd(h, plaintext); MixHash(ciphertext).
    mutating func encryptAndHash(_ plaintext: [UInt8]) throws(PeerChannelError) -> [UInt8] {
        let ciphertext = try cipher.encrypt(plaintext, associatedData: handshakeHash)
        try mixHash(ciphertext)
        return ciphertext
    }

    /// DecryptAndHash(ciphertext): plaintext = DecryptWithAd(h, ciphertext); MixHash(ciphertext).
    mutating func decryptAndHash(_ ciphertext: [UInt8]) throws(PeerChannelError) -> [UInt8] {
        let plaintext = try cipher.decrypt(ciphertext, associatedData: handshakeHash, failure: .handshakeAuthenticationFailed)
        try mixHash(ciphertext)
        return plaintext
    }

    /// Split(): temp_k1, temp_k2 = HKDF(ck, empty, 2); the initiator sends with the first and
    /// receives with the second.
    func split() throws(PeerChannelError) -> (initiatorToResponder: NoiseCipherState, responderToInitiator: NoiseCipherState) {
        let empty = try PeerChannelError.wrappingPrimitives { try SecureBytes(count: 0) }
        let outputs = try Self.hkdf(chainingKey: chainingKey, inputKeyMaterial: empty, outputCount: 2)
        return (NoiseCipherState(key: try Self.cipherKey(outputs[0])), NoiseCipherState(key: try Self.cipherKey(outputs[1])))
    }

    /// HKDF(chaining_key, input_key_material, num_outputs) of §4.3:
    /// temp_key = HMAC(ck, ikm); output1 = HMAC(temp_key, 0x01);
    /// output_i = HMAC(temp_key, output_{i-1} || i) for i = 2, 3.
    static func hkdf(chainingKey: SecureBytes, inputKeyMaterial: SecureBytes,
                     outputCount: Int) throws(PeerChannelError) -> [SecureBytes] {
        try PeerChannelError.wrappingPrimitives {
            let temporaryKey = try HMACBLAKE2b.authenticate(key: chainingKey, message: inputKeyMaterial)
            var outputs: [SecureBytes] = []
            for index in 1...outputCount {
                let counter = try SecureBytes(copying: [UInt8(index)])
                let message = try outputs.last.map { try $0.appending(counter) } ?? counter
                outputs.append(try HMACBLAKE2b.authenticate(key: temporaryKey, message: message))
            }
            return outputs
        }
    }

    /// HASHLEN is 64 and a ChaChaPoly key 32, so temp_k is truncated (§5.2).
    private static func cipherKey(_ output: SecureBytes) throws(PeerChannelError) -> SecureBytes {
        try PeerChannelError.wrappingPrimitives { try output.slice(0..<ChaChaPoly.keySize) }
    }
}
