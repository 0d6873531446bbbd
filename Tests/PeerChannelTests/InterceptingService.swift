import CryptoVault
import PeerChannel
import Synchronization

/// A service that hands each request to `service` after `intercept` saw it: the keeper side of a test
/// that must act at an exact request (revoke a pairing when the second chunk arrives, alter a chunk).
/// `intercept` gets the kind, how many requests of that kind came before, and the body, which it may
/// change; what it throws is refused as the service's error would be. It counts the requests of
/// each kind that reached it.
final class InterceptingService: ChannelService {
    typealias Intercept = @Sendable (_ kind: String, _ earlier: Int, _ body: inout [UInt8]) throws -> Void

    private let service: any ChannelService
    private let intercept: Intercept
    private let counts = Mutex<[String: Int]>([:])

    init(_ service: any ChannelService, intercept: @escaping Intercept) {
        self.service = service
        self.intercept = intercept
    }

    var requestKinds: [String] { service.requestKinds }

    func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        let earlier = counts.withLock { counts in
            defer { counts[kind, default: 0] += 1 }
            return counts[kind, default: 0]
        }
        var body = body
        try intercept(kind, earlier, &body)
        return try service.respond(to: kind, body: body, from: peer)
    }

    /// The requests of `kind` that reached this service.
    func count(of kind: String) -> Int { counts.withLock { $0[kind, default: 0] } }
}
