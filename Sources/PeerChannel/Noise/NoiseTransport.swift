/// The two cipher states of an established Noise channel: one for each direction.
///
/// Nonces are implicit counters, so each message must be opened exactly once and in order; a
/// replayed, dropped, reordered or altered message fails with `.messageAuthenticationFailed`. Any
/// refused incoming message (that, or one over the size limit) closes the receiving direction: every
/// later `open` throws the same error, because after a gap nothing that follows can be trusted. Each direction rekeys (Noise §11.3) after every
/// `rekeyInterval` messages, at the same message count on both sides, so a key that leaks from
/// memory later exposes at most that many messages of a long-lived channel.
public struct NoiseTransport: Sendable {
    /// Messages per direction between two rekeys.
    public static let defaultRekeyInterval: UInt64 = 1 << 16
    /// The largest message (§3), and so the largest plaintext: the message less the 16-byte tag.
    public static let maximumMessageLength = NoiseHandshake.maximumMessageLength
    public static let maximumPlaintextLength = maximumMessageLength - NoiseCipherState.tagSize

    /// The handshake hash, equal on both sides.
    public let handshakeHash: [UInt8]
    /// The peer's static public key, authenticated by the handshake; compare it with the pinned key
    /// before trusting anything the channel carries.
    public let remoteStaticKey: [UInt8]
    let rekeyInterval: UInt64
    private var sending: NoiseCipherState
    private var receiving: NoiseCipherState
    private var receiveFailure: PeerChannelError?

    init(sending: NoiseCipherState, receiving: NoiseCipherState, handshakeHash: [UInt8], remoteStaticKey: [UInt8],
         rekeyInterval: UInt64 = defaultRekeyInterval) {
        self.sending = sending
        self.receiving = receiving
        self.handshakeHash = handshakeHash
        self.remoteStaticKey = remoteStaticKey
        self.rekeyInterval = max(1, rekeyInterval)
    }

    /// The same channel rekeying every `interval` messages, for tests that must reach a rekey.
    func rekeying(every interval: UInt64) -> NoiseTransport {
        NoiseTransport(sending: sending, receiving: receiving, handshakeHash: handshakeHash,
                       remoteStaticKey: remoteStaticKey, rekeyInterval: interval)
    }

    /// Messages sealed so far in this direction (the nonce of the next one).
    public var sentMessageCount: UInt64 { sending.nonce }
    /// Messages opened so far (the nonce the next incoming message must carry).
    public var receivedMessageCount: UInt64 { receiving.nonce }
    /// Rekeys applied so far to each direction's key; both sides count the same.
    public var rekeyCount: (sending: UInt64, receiving: UInt64) {
        (sending.nonce / rekeyInterval, receiving.nonce / rekeyInterval)
    }

    /// Encrypts the next outgoing message (at most `maximumPlaintextLength` bytes).
    public mutating func seal(_ plaintext: [UInt8]) throws(PeerChannelError) -> [UInt8] {
        try seal(plaintext[...])
    }

    /// `seal` of part of a larger buffer, without copying it out first.
    public mutating func seal(_ plaintext: ArraySlice<UInt8>) throws(PeerChannelError) -> [UInt8] {
        guard plaintext.count <= Self.maximumPlaintextLength else {
            throw PeerChannelError(.messageTooLarge, "a plaintext of \(plaintext.count) bytes exceeds the \(Self.maximumPlaintextLength)-byte Noise limit")
        }
        let message = try sending.encrypt(plaintext, associatedData: [])
        try rekeyIfDue(&sending)
        return message
    }

    /// `seal` written straight into `output` (plaintext.count + 16 bytes), for a frame assembled in
    /// place: a bulk transfer allocates nothing per message.
    mutating func seal(_ plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(PeerChannelError) {
        guard plaintext.count <= Self.maximumPlaintextLength else {
            throw PeerChannelError(.messageTooLarge, "a plaintext of \(plaintext.count) bytes exceeds the \(Self.maximumPlaintextLength)-byte Noise limit")
        }
        try sending.encrypt(plaintext, into: output, associatedData: [])
        try rekeyIfDue(&sending)
    }

    /// Decrypts the next incoming message, which must be the one the peer sealed next.
    public mutating func open(_ message: [UInt8]) throws(PeerChannelError) -> [UInt8] {
        try refusingAfterFailure { (receiving) throws(PeerChannelError) in
            try Self.checkLength(of: message.count)
            return try receiving.decrypt(message, associatedData: [], failure: .messageAuthenticationFailed)
        }
    }

    /// `open` written straight into `output` (message.count − 16 bytes): the part of a reassembled
    /// message this record fills. On any failure `output` holds no plaintext.
    mutating func open(_ message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(PeerChannelError) {
        try refusingAfterFailure { (receiving) throws(PeerChannelError) in
            try Self.checkLength(of: message.count)
            try receiving.decrypt(message, into: output, associatedData: [], failure: .messageAuthenticationFailed)
        }
    }

    /// Runs one opening; the first failure closes the receiving direction for good.
    private mutating func refusingAfterFailure<Result>(
        _ body: (inout NoiseCipherState) throws(PeerChannelError) -> Result) throws(PeerChannelError) -> Result {
        if let receiveFailure { throw receiveFailure }
        do throws(PeerChannelError) {
            let result = try body(&receiving)
            try rekeyIfDue(&receiving)
            return result
        } catch {
            receiveFailure = error
            throw error
        }
    }

    private static func checkLength(of count: Int) throws(PeerChannelError) {
        guard count <= maximumMessageLength else {
            throw PeerChannelError(.messageTooLarge, "a message of \(count) bytes exceeds the \(maximumMessageLength)-byte Noise limit")
        }
    }

    /// Rekeys after the message whose nonce completes an interval; both sides count the same way.
    private func rekeyIfDue(_ cipher: inout NoiseCipherState) throws(PeerChannelError) {
        if cipher.nonce.isMultiple(of: rekeyInterval) { try cipher.rekey() }
    }
}
