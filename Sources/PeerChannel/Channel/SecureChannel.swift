import CryptoVault

/// An established channel to a paired device: Noise transport messages in frames, carrying the
/// message layer (SECURITY.md §9.9). One side's messages are read strictly in order: a frame that was
/// replayed, reordered, dropped before or altered fails authentication at the expected nonce, and the
/// error ends the channel (the caller closes the connection). Each direction rekeys every
/// `rekeyInterval` messages.
///
/// Any failure ends the channel for good: later sends and receives throw the same error, since after a
/// timeout or a refused frame the two sides no longer agree on where the stream is.
///
/// Not thread-safe: one thread, the one that owns the connection, sends and receives (a client may
/// still have several requests outstanding: `ChannelClient.requests`).
final class SecureChannel {
    let connection: TCPConnection
    /// The device on the other end, as its pairing pinned it.
    let peer: DeviceProfile
    let timeouts: ChannelTimeouts
    private(set) var transport: NoiseTransport
    private var reader: ChannelMessageReader
    private var outgoing = SealedFrameBatch()
    private var failure: PeerChannelError?

    /// The initiator's channel: connects the handshake to `peer` and waits for the responder's "ready".
    static func initiate(over connection: TCPConnection, localKeys: DeviceKeys, peer: DeviceProfile, timeouts: ChannelTimeouts,
                         rekeyInterval: UInt64 = NoiseTransport.defaultRekeyInterval) throws(PeerChannelError) -> SecureChannel {
        connection.setDeadline(secondsFromNow: timeouts.handshakeSeconds)
        let transport = try ChannelHandshake.initiate(over: connection, localKeys: localKeys, expecting: peer)
        let channel = SecureChannel(connection: connection, peer: peer, timeouts: timeouts,
                                    transport: transport.rekeying(every: rekeyInterval), accepting: [.ready])
        guard try channel.receive(within: timeouts.handshakeSeconds).type == .ready else {
            throw PeerChannelError(.malformedChannelMessage, "the responder's first message is not 'ready'")
        }
        channel.reader = ChannelMessageReader(allowedTypes: [.answer, .refusal])
        try connection.allowFrames(upTo: FrameCodec.maximumMessageLength)
        return channel
    }

    /// The responder's channel, once the handshake found the initiator's pairing and the server
    /// admitted it: raises the frame limit and sends "ready".
    static func respond(over connection: TCPConnection, transport: NoiseTransport, peer: DeviceProfile, timeouts: ChannelTimeouts,
                        rekeyInterval: UInt64 = NoiseTransport.defaultRekeyInterval) throws(PeerChannelError) -> SecureChannel {
        let channel = SecureChannel(connection: connection, peer: peer, timeouts: timeouts,
                                    transport: transport.rekeying(every: rekeyInterval), accepting: [.request])
        try connection.allowFrames(upTo: FrameCodec.maximumMessageLength)
        try channel.send(.ready)
        return channel
    }

    private init(connection: TCPConnection, peer: DeviceProfile, timeouts: ChannelTimeouts, transport: NoiseTransport,
                 accepting types: Set<ChannelMessage.MessageType>) {
        self.connection = connection
        self.peer = peer
        self.timeouts = timeouts
        self.transport = transport
        self.reader = ChannelMessageReader(allowedTypes: types)
    }

    /// Sends `message`, one transport message per record, sealed into frames that go out a few at a
    /// time (`SealedFrameBatch`); the last goes out before this returns.
    func send(_ message: ChannelMessage) throws(PeerChannelError) {
        try ending { () throws(PeerChannelError) in
            try message.forEachRecord { (record) throws(PeerChannelError) in
                connection.setDeadline(secondsFromNow: timeouts.idleSeconds)
                try outgoing.add(record, sealedBy: &transport, flushingTo: connection)
            }
            connection.setDeadline(secondsFromNow: timeouts.idleSeconds)
            try outgoing.flush(to: connection)
        }
    }

    /// The peer's next message; each frame must arrive within the idle timeout (or `seconds`).
    func receive(within seconds: Double? = nil) throws(PeerChannelError) -> ChannelMessage {
        try ending { () throws(PeerChannelError) -> ChannelMessage in
            while true {
                connection.setDeadline(secondsFromNow: seconds ?? timeouts.idleSeconds)
                let frame = try connection.readFrameInPlace()
                // No transport message is shorter than its 16-byte tag, so one byte is a refusal (§9.9).
                if frame.count == 1 { throw ChannelHandshake.refusalError(frame[frame.startIndex]) }
                if let message = try take(frame) { return message }
            }
        }
    }

    /// Opens `frame` straight into the message it continues (`ChannelMessageReader`), and returns
    /// the message if the frame completes it.
    private func take(_ frame: ArraySlice<UInt8>) throws(PeerChannelError) -> ChannelMessage? {
        guard frame.count >= NoiseCipherState.tagSize else { return try reader.take(transport.open(Array(frame))) }
        return try reader.take(recordOfLength: frame.count - NoiseCipherState.tagSize) { (output) throws(PeerChannelError) in
            try frame.withUnsafeBytes { input in
                Result { () throws(PeerChannelError) in try transport.open(input, into: output) }
            }.get()
        }
    }

    /// Runs `body` unless the channel already failed; a failure in it ends the channel.
    private func ending<Result>(_ body: () throws(PeerChannelError) -> Result) throws(PeerChannelError) -> Result {
        if let failure { throw failure }
        do {
            return try body()
        } catch {
            failure = error
            throw error
        }
    }
}
