import CryptoVault

/// Routes each request to the service that answers its kind (SECURITY.md §9.9). An unknown kind is
/// refused (`.unknownRequestKind`); a service's `PeerChannelError` goes back as a refusal with its
/// code and message; any other error becomes `.serviceFailed` without its text, which could say more
/// about this vault than the peer should learn.
struct ChannelDispatcher: Sendable {
    private let services: [String: any ChannelService]

    /// Refuses two services that claim the same kind, or a kind the message layer cannot carry.
    init(_ services: [any ChannelService]) throws(PeerChannelError) {
        var byKind: [String: any ChannelService] = [:]
        for service in services {
            for kind in service.requestKinds {
                guard (try? ChannelMessage.request(kind, body: [])) != nil else {
                    throw PeerChannelError(.invalidConfiguration, "'\(kind)' is not a request kind (1 to \(ChannelLimits.maximumKindLength) printable ASCII bytes)")
                }
                guard byKind.updateValue(service, forKey: kind) == nil else {
                    throw PeerChannelError(.invalidConfiguration, "two services answer '\(kind)'")
                }
            }
        }
        self.services = byKind
    }

    /// The answer or refusal to `request` from `peer`.
    func answer(_ request: ChannelMessage, from peer: DeviceProfile) -> ChannelMessage {
        guard let service = services[request.label] else {
            return .refusal(PeerChannelError(.unknownRequestKind, "no service here answers '\(request.label)'"))
        }
        do {
            return try ChannelMessage(.answer, body: service.respond(to: request.label, body: request.body, from: peer))
        } catch let error as PeerChannelError {
            return .refusal(error)
        } catch {
            return .refusal(PeerChannelError(.serviceFailed, "the service for '\(request.label)' failed"))
        }
    }
}
