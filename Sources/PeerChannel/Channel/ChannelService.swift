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

/// The connecting side of a channel: requests to an authenticated, pinned peer, answered in order.
public protocol ChannelRequesting: AnyObject {
    /// The device on the other end, as pinned at pairing.
    var peer: DeviceProfile { get }

    /// Sends a request and waits for its answer. A refusal from the peer throws the peer's
    /// `PeerChannelError` code (`.peerRefused` when the code is unknown here).
    func request(_ kind: String, body: [UInt8]) throws -> [UInt8]

    /// Sends a run of `kind` requests, whose bodies `nextBody` makes one by one (nil ends the run),
    /// with at most `window` of them unanswered at a time (1 to `ChannelLimits.maximumRequestsInFlight`),
    /// and hands each answer to `answered` with its request's index (from 0), in request order.
    ///
    /// Only for requests whose answers are small (a refusal, a count): while this side writes a
    /// request the peer's answers to earlier ones wait in the connection, unread.
    ///
    /// The first failure ends the run and is thrown: the peer's refusal of a request (its code and
    /// text, as `request` throws it), or what `nextBody` or `answered` threw. No request is sent after
    /// it, and the answers still owed for requests already sent are read and dropped before this
    /// returns, so the next request on the channel gets its own answer.
    func requests(_ kind: String, window: Int, bodies nextBody: () throws -> [UInt8]?,
                  answered: (_ index: Int, _ answer: [UInt8]) throws -> Void) throws
}

extension ChannelRequesting {
    /// One request at a time (a window of one is within every allowed window), for requesters that
    /// hand requests straight to a service.
    public func requests(_ kind: String, window: Int, bodies nextBody: () throws -> [UInt8]?,
                         answered: (_ index: Int, _ answer: [UInt8]) throws -> Void) throws {
        try ChannelLimits.checkWindow(window)
        var index = 0
        while let body = try nextBody() {
            try answered(index, try request(kind, body: body))
            index += 1
        }
    }
}

/// Bounds every side applies to the application layer.
public enum ChannelLimits {
    /// The longest request kind.
    public static let maximumKindLength = 64
    /// The largest request or answer body; bulk transfers split into bodies of this size or less.
    public static let maximumBodyLength = 4 << 20
    /// The most requests a client leaves unanswered at a time (`ChannelRequesting.requests`).
    public static let maximumRequestsInFlight = 4

    static func checkWindow(_ window: Int) throws(PeerChannelError) {
        guard (1...maximumRequestsInFlight).contains(window) else {
            throw PeerChannelError(.invalidConfiguration, "a window of \(window) requests; it must be 1 to \(maximumRequestsInFlight)")
        }
    }
}
