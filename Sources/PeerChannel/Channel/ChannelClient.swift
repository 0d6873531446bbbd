import CryptoVault

/// The connecting side of a channel (SECURITY.md §9.9): connects to ADDR:PORT, runs the handshake as
/// the initiator, refuses a responder whose static key is not `peer`'s pinned key (`.unpinnedPeer`,
/// before this device even reveals its own key), and then sends requests: one at a time, or a run of
/// them with a bounded number unanswered (`requests`), whose answers come back in order.
///
/// Not thread-safe: one caller at a time, as `SecureChannel` underneath.
public final class ChannelClient: ChannelRequesting {
    public let peer: DeviceProfile
    private let channel: SecureChannel

    /// Connects to `peer` at `address` as the device of `localKeys`.
    public convenience init(connectingTo address: SocketAddress, localKeys: DeviceKeys, peer: DeviceProfile,
                            timeouts: ChannelTimeouts = ChannelTimeouts()) throws(PeerChannelError) {
        try self.init(connectingTo: address, localKeys: localKeys, peer: peer, timeouts: timeouts,
                      rekeyInterval: NoiseTransport.defaultRekeyInterval)
    }

    /// With another rekey interval, for tests that must cross one (both sides must use the same).
    init(connectingTo address: SocketAddress, localKeys: DeviceKeys, peer: DeviceProfile, timeouts: ChannelTimeouts,
         rekeyInterval: UInt64) throws(PeerChannelError) {
        try timeouts.validate()
        let connection = try TCPConnection.connect(to: address, maximumFrameLength: ChannelHandshake.maximumFrameLength,
                                                   timeoutSeconds: timeouts.handshakeSeconds)
        self.peer = peer
        channel = try SecureChannel.initiate(over: connection, localKeys: localKeys, peer: peer, timeouts: timeouts,
                                             rekeyInterval: rekeyInterval)
    }

    /// Sends a request and waits for its answer. A refusal throws the peer's code if this side knows
    /// it (`.peerRefused` otherwise), with the peer's text; any other failure ends the channel.
    public func request(_ kind: String, body: [UInt8]) throws -> [UInt8] {
        try channel.send(ChannelMessage.request(kind, body: body))
        return try answerBody(of: channel.receive(), answering: kind)
    }

    /// Pipelined over the one connection (SECURITY.md §9.9): the responder reads the next request only
    /// after it answered the one before, so while it works on one, this side encrypts and writes the
    /// next. Each request is written whole before the next body is asked for, so no body is held while
    /// its answer is pending, and the answers owed (at most `window`, small) fit in the connection's
    /// buffers: neither side can block the other for good.
    ///
    /// A failure of the channel itself (a timeout, a closed connection, a frame that does not open)
    /// ends the channel, as for `request`: every later request throws it too.
    public func requests(_ kind: String, window: Int, bodies nextBody: () throws -> [UInt8]?,
                         answered: (_ index: Int, _ answer: [UInt8]) throws -> Void) throws {
        try ChannelLimits.checkWindow(window)
        var (sent, received) = (0, 0)
        do {
            var exhausted = false
            while true {
                while !exhausted, sent - received < window {
                    guard let body = try nextBody() else { exhausted = true; break }
                    try channel.send(ChannelMessage.request(kind, body: body))
                    sent += 1
                }
                guard received < sent else { return }
                let reply = try channel.receive()
                received += 1
                try answered(received - 1, try answerBody(of: reply, answering: kind))
            }
        } catch {
            dropAnswers(sent - received)
            throw error
        }
    }

    /// Reads and drops the answers still owed after a run failed, so that none is taken later for
    /// another request's. Refusals among them follow from the failure (a keeper refuses the chunks
    /// after one it refused, as out of order) and are not reported. A failure of the channel stops
    /// this: the channel is then ended, and the next request says so.
    private func dropAnswers(_ count: Int) {
        for _ in 0..<count {
            guard (try? channel.receive()) != nil else { return }
        }
    }

    /// The body of an answer to a `kind` request; a refusal throws the peer's code (`.peerRefused` if
    /// this side does not know it) with the peer's text.
    private func answerBody(of reply: ChannelMessage, answering kind: String) throws(PeerChannelError) -> [UInt8] {
        guard reply.type == .refusal else { return reply.body }
        let code = PeerChannelErrorCode(rawValue: reply.label) ?? .peerRefused
        // The peer's words, not the request's wire name ('sync.offer'), which says nothing to the
        // owner reading it (review 17 F17-8).
        throw PeerChannelError(code, "\(peer.name) refused: \(Self.printable(reply.body))")
    }

    /// Messages sent and received so far on the channel (counted in Noise transport messages).
    public var transportMessageCounts: (sent: UInt64, received: UInt64) {
        (channel.transport.sentMessageCount, channel.transport.receivedMessageCount)
    }

    /// The peer's text with control characters replaced, since it is shown to a person.
    private static func printable(_ text: [UInt8]) -> String {
        String(decoding: text, as: UTF8.self).map { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7F) ? "?" : String($0) }.joined()
    }
}
