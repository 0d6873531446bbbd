import CryptoVault

/// The connecting side of a channel (SECURITY.md §9.9): connects to ADDR:PORT, runs the handshake as
/// the initiator, refuses a responder whose static key is not `peer`'s pinned key (`.unpinnedPeer`,
/// before this device even reveals its own key), and then sends requests one at a time.
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
        let reply = try channel.receive()
        guard reply.type == .refusal else { return reply.body }
        let code = PeerChannelErrorCode(rawValue: reply.label) ?? .peerRefused
        throw PeerChannelError(code, "\(peer.name) refused '\(kind)': \(Self.printable(reply.body))")
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
