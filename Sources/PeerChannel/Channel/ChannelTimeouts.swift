/// How long a channel waits for its peer (SECURITY.md §9.9). Every wait has a deadline, so a peer that
/// goes silent or trickles bytes holds a connection (and, on a server, a slot) for a bounded time.
public struct ChannelTimeouts: Sendable, Equatable {
    /// From connect or accept to the end of the handshake (the responder's "ready").
    public var handshakeSeconds: Double
    /// The longest wait for the peer's next frame once the channel is up: a server drops a client that
    /// sends no request for this long, and a client gives up on an answer that stalls this long.
    public var idleSeconds: Double

    public init(handshakeSeconds: Double = 10, idleSeconds: Double = 300) {
        self.handshakeSeconds = handshakeSeconds
        self.idleSeconds = idleSeconds
    }

    /// Refuses a timeout that is not a positive, finite number of seconds.
    func validate() throws(PeerChannelError) {
        for seconds in [handshakeSeconds, idleSeconds] where !(seconds.isFinite && seconds > 0) {
            throw PeerChannelError(.invalidConfiguration, "a channel timeout must be a positive number of seconds, not \(seconds)")
        }
    }
}
