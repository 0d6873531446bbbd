import CryptoVault

/// The application layer of a channel between paired devices (SECURITY.md §9.9): the side that
/// connected sends a request (a kind and a body) and the other side answers it. Replication,
/// witnessing, sharing and ping are services; the channel underneath only authenticates, frames and
/// encrypts.
///
/// A service answers one request at a time for one authenticated peer whose static key was pinned
/// before any application data was read, so `peer` is always a device this vault paired with.
public protocol ChannelService: Sendable {
    /// The request kinds this service answers, such as "replicate.inventory". Unique across the
    /// services of one daemon; at most `ChannelLimits.maximumKindLength` ASCII bytes.
    var requestKinds: [String] { get }

    /// The answer to one request. A thrown `PeerChannelError` is sent back to the peer as a refusal
    /// with its code and message (never a secret); the connection stays open.
    func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8]
}

/// The connecting side of a channel: one request at a time to an authenticated, pinned peer.
public protocol ChannelRequesting: AnyObject {
    /// The device on the other end, as pinned at pairing.
    var peer: DeviceProfile { get }

    /// Sends a request and waits for its answer. A refusal from the peer throws the peer's
    /// `PeerChannelError` code (`.peerRefused` when the code is unknown here).
    func request(_ kind: String, body: [UInt8]) throws -> [UInt8]
}

/// Bounds every side applies to the application layer.
public enum ChannelLimits {
    /// The longest request kind.
    public static let maximumKindLength = 64
    /// The largest request or answer body; bulk transfers split into bodies of this size or less.
    public static let maximumBodyLength = 4 << 20
}
