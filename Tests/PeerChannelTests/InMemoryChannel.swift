import CryptoVault
import PeerChannel

/// A `ChannelRequesting` that hands each request straight to the peer's services, in memory, as the
/// channel does once both sides authenticated: the services see `local` as the pinned peer. For tests
/// of any service (replication, witnessing, sharing) before or beside the real channel.
///
/// It applies the channel's bounds (kind length, body size, a kind some service answers), counts the
/// requests and body bytes of each kind, and lets a test alter a request or break the connection
/// (`intercept` may change the body or throw) to play a hostile or failing network.
final class InMemoryChannel: ChannelRequesting {
    let peer: DeviceProfile
    private let local: DeviceProfile
    private let services: [any ChannelService]
    private(set) var requestCounts: [String: Int] = [:]
    private(set) var requestBytes: [String: Int] = [:]
    var intercept: ((_ kind: String, _ body: inout [UInt8]) throws -> Void)?

    init(from local: DeviceProfile, to peer: DeviceProfile, services: [any ChannelService]) {
        self.local = local
        self.peer = peer
        self.services = services
    }

    func request(_ kind: String, body: [UInt8]) throws -> [UInt8] {
        guard kind.utf8.count <= ChannelLimits.maximumKindLength, body.count <= ChannelLimits.maximumBodyLength,
              let service = services.first(where: { $0.requestKinds.contains(kind) }) else {
            throw PeerChannelError(.messageTooLarge, "a request the channel would not carry: '\(kind)', \(body.count) bytes")
        }
        var body = body
        try intercept?(kind, &body)
        requestCounts[kind, default: 0] += 1
        requestBytes[kind, default: 0] += body.count
        let answer = try service.respond(to: kind, body: body, from: local)
        guard answer.count <= ChannelLimits.maximumBodyLength else {
            throw PeerChannelError(.messageTooLarge, "an answer of \(answer.count) bytes")
        }
        return answer
    }

    /// The bytes of `kind` requests delivered so far.
    func bytes(of kind: String) -> Int { requestBytes[kind] ?? 0 }
}
