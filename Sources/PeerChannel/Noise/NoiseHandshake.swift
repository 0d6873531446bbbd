import CryptoVault

/// The HandshakeState of the Noise Protocol Framework (revision 34, §5.3) for `NoisePattern`s, with
/// X25519, ChaChaPoly and BLAKE2b. Each side alternately writes and reads the pattern's messages;
/// once all are done, `transport()` gives the two cipher states of the channel.
///
/// A write that fails changes nothing (it works on a copy), so a caller may retry with a smaller
/// payload. A read that fails ends the handshake: every later call throws `.handshakeOutOfOrder`,
/// since a peer whose message did not authenticate must not get another try on the same state.
/// The handshake state holds the static key, so it is not meant to be copied around by callers;
/// copies are what make writes and reads all-or-nothing.
public struct NoiseHandshake: Sendable {
    public enum Role: Sendable {
        case initiator, responder
    }

    /// The largest Noise message (§3); handshake and transport messages alike.
    public static let maximumMessageLength = 65535
    /// The size of an X25519 public key (DHLEN).
    static let publicKeySize = X25519PrivateKey.keySize
    /// The size of a PSK (§9).
    public static let presharedKeySize = 32

    public let pattern: NoisePattern
    public let role: Role
    private var symmetric: NoiseSymmetricState
    private let staticKey: X25519PrivateKey
    private let presetEphemeralKey: X25519PrivateKey?
    private let presharedKey: SecureBytes?
    private var ephemeralKey: X25519PrivateKey?
    private var remoteEphemeralKey: [UInt8]?
    /// The peer's static public key, once the message carrying it has been read and authenticated.
    public private(set) var remoteStaticKey: [UInt8]?
    private var messageIndex = 0
    private var failed = false

    /// Initialize(pattern, role, prologue, s, psk). The prologue is data both sides must hold
    /// identically (it enters the handshake hash but is never sent). `presharedKey` is required
    /// (32 bytes) for a psk pattern and refused for the others.
    public init(pattern: NoisePattern, role: Role, prologue: [UInt8], staticKey: X25519PrivateKey,
                presharedKey: SecureBytes? = nil) throws(PeerChannelError) {
        try self.init(pattern: pattern, role: role, prologue: prologue, staticKey: staticKey,
                      presharedKey: presharedKey, ephemeralKey: nil)
    }

    /// With a fixed ephemeral key, for known-answer vectors only: a reused ephemeral key breaks the
    /// handshake's forward secrecy.
    init(pattern: NoisePattern, role: Role, prologue: [UInt8], staticKey: X25519PrivateKey,
         presharedKey: SecureBytes?, ephemeralKey: X25519PrivateKey?) throws(PeerChannelError) {
        guard pattern.usesPresharedKey == (presharedKey != nil) else {
            throw PeerChannelError(.invalidConfiguration, "\(pattern.protocolName) \(pattern.usesPresharedKey ? "needs" : "takes no") PSK")
        }
        if let presharedKey, presharedKey.count != Self.presharedKeySize {
            throw PeerChannelError(.invalidConfiguration, "a Noise PSK is \(Self.presharedKeySize) bytes, not \(presharedKey.count)")
        }
        self.pattern = pattern
        self.role = role
        self.staticKey = staticKey
        self.presharedKey = presharedKey
        self.presetEphemeralKey = ephemeralKey
        symmetric = try NoiseSymmetricState(protocolName: pattern.protocolName)
        try symmetric.mixHash(prologue)
    }

    /// Whether every handshake message has been written or read.
    public var isComplete: Bool { messageIndex == pattern.messages.count }

    /// Whether the next step is this side's `writeMessage` (rather than `readMessage`).
    public var isWriting: Bool { !isComplete && messageIndex.isMultiple(of: 2) == (role == .initiator) }

    /// h: after the handshake, a value both sides share and no one else can produce (channel binding).
    public var handshakeHash: [UInt8] { symmetric.handshakeHash }

    /// WriteMessage(payload): the next handshake message, carrying `payload` (encrypted once a key
    /// is set, which in XX is from the second message on, and in XXpsk3 from the first).
    public mutating func writeMessage(payload: [UInt8] = []) throws(PeerChannelError) -> [UInt8] {
        try checkTurn(writing: true)
        var next = self
        var message: [UInt8] = []
        for token in pattern.messages[messageIndex] {
            message += try next.write(token)
        }
        message += try next.symmetric.encryptAndHash(payload)
        guard message.count <= Self.maximumMessageLength else {
            throw PeerChannelError(.messageTooLarge, "a handshake message of \(message.count) bytes exceeds \(Self.maximumMessageLength)")
        }
        next.messageIndex += 1
        self = next
        return message
    }

    /// ReadMessage(message): processes the peer's next handshake message and returns its payload.
    /// Like a write, a read works on a copy, so nothing it learned (the peer's static key above all)
    /// is kept unless the whole message authenticated.
    public mutating func readMessage(_ message: [UInt8]) throws(PeerChannelError) -> [UInt8] {
        try checkTurn(writing: false)
        do throws(PeerChannelError) {
            guard message.count <= Self.maximumMessageLength else {
                throw PeerChannelError(.messageTooLarge, "a handshake message of \(message.count) bytes exceeds \(Self.maximumMessageLength)")
            }
            var next = self
            var remaining = message[...]
            for token in pattern.messages[messageIndex] {
                try next.read(token, from: &remaining)
            }
            let payload = try next.symmetric.decryptAndHash(Array(remaining))
            next.messageIndex += 1
            self = next
            return payload
        } catch {
            failed = true
            throw error
        }
    }

    /// Split(): the channel's cipher states, once the handshake is complete.
    public func transport() throws(PeerChannelError) -> NoiseTransport {
        guard isComplete, !failed, let remoteStaticKey else {
            throw PeerChannelError(.handshakeOutOfOrder, "the handshake is not complete")
        }
        let (initiatorToResponder, responderToInitiator) = try symmetric.split()
        let initiator = role == .initiator
        return NoiseTransport(sending: initiator ? initiatorToResponder : responderToInitiator,
                              receiving: initiator ? responderToInitiator : initiatorToResponder,
                              handshakeHash: handshakeHash, remoteStaticKey: remoteStaticKey)
    }

    // MARK: Tokens

    private mutating func write(_ token: NoiseToken) throws(PeerChannelError) -> [UInt8] {
        switch token {
        case .e:
            let ephemeral = try newEphemeralKey()
            ephemeralKey = ephemeral
            try mixEphemeral(ephemeral.publicKey)
            return ephemeral.publicKey
        case .s:
            return try symmetric.encryptAndHash(staticKey.publicKey)
        case .ee, .es, .se, .psk:
            try mix(token)
            return []
        }
    }

    private mutating func read(_ token: NoiseToken, from message: inout ArraySlice<UInt8>) throws(PeerChannelError) {
        switch token {
        case .e:
            let ephemeral = try Self.take(Self.publicKeySize, from: &message)
            remoteEphemeralKey = ephemeral
            try mixEphemeral(ephemeral)
        case .s:
            let sealedSize = Self.publicKeySize + (symmetric.cipher.hasKey ? NoiseCipherState.tagSize : 0)
            remoteStaticKey = try symmetric.decryptAndHash(Self.take(sealedSize, from: &message))
        case .ee, .es, .se, .psk:
            try mix(token)
        }
    }

    /// The `e` token's hashing, the same for writer and reader: MixHash(e.public_key), and in a psk
    /// pattern also MixKey(e.public_key), so that nothing is encrypted under a key without randomness.
    private mutating func mixEphemeral(_ publicKey: [UInt8]) throws(PeerChannelError) {
        try symmetric.mixHash(publicKey)
        if pattern.usesPresharedKey {
            try symmetric.mixKey(PeerChannelError.wrappingPrimitives { try SecureBytes(copying: publicKey) })
        }
    }

    /// The tokens that only mix keys, identical for writer and reader apart from which keys meet.
    private mutating func mix(_ token: NoiseToken) throws(PeerChannelError) {
        let initiator = role == .initiator
        switch token {
        case .ee: try symmetric.mixKey(diffieHellman(ephemeralKey, remoteEphemeralKey))
        case .es: try symmetric.mixKey(initiator ? diffieHellman(ephemeralKey, remoteStaticKey) : diffieHellman(staticKey, remoteEphemeralKey))
        case .se: try symmetric.mixKey(initiator ? diffieHellman(staticKey, remoteEphemeralKey) : diffieHellman(ephemeralKey, remoteStaticKey))
        case .psk:
            guard let presharedKey else { throw PeerChannelError(.invalidConfiguration, "the pattern needs a PSK") }
            try symmetric.mixKeyAndHash(presharedKey)
        case .e, .s:
            break
        }
    }

    /// DH(key, publicKey). A low-order peer key would give an all-zero secret that an attacker knows,
    /// so it is refused (`.invalidPublicKey`); the keys are always present in these patterns.
    private func diffieHellman(_ key: X25519PrivateKey?, _ publicKey: [UInt8]?) throws(PeerChannelError) -> SecureBytes {
        guard let key, let publicKey else {
            throw PeerChannelError(.handshakeOutOfOrder, "a Diffie-Hellman token came before its keys")
        }
        return try PeerChannelError.wrappingPrimitives {
            do {
                return try key.sharedSecret(with: publicKey)
            } catch let error as CryptoVaultError where error.code == .invalidPublicKey {
                throw PeerChannelError(.invalidPublicKey, "the peer's X25519 public key is a low-order point")
            }
        }
    }

    /// GENERATE_KEYPAIR(): a fresh key from the operating system's CSPRNG for every handshake.
    private func newEphemeralKey() throws(PeerChannelError) -> X25519PrivateKey {
        if let presetEphemeralKey { return presetEphemeralKey }
        return try PeerChannelError.wrappingPrimitives { try X25519PrivateKey() }
    }

    private static func take(_ count: Int, from message: inout ArraySlice<UInt8>) throws(PeerChannelError) -> [UInt8] {
        guard message.count >= count else {
            throw PeerChannelError(.malformedHandshakeMessage, "a handshake message ends \(count - message.count) bytes early")
        }
        defer { message = message.dropFirst(count) }
        return Array(message.prefix(count))
    }

    private func checkTurn(writing: Bool) throws(PeerChannelError) {
        guard !failed else {
            throw PeerChannelError(.handshakeOutOfOrder, "the handshake failed earlier and cannot continue")
        }
        guard !isComplete, isWriting == writing else {
            throw PeerChannelError(.handshakeOutOfOrder, isComplete ? "the handshake is complete" : "it is the peer's turn to \(writing ? "write" : "read")")
        }
    }
}
