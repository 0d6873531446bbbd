import CryptoVault
import PeerChannel
import Sync

/// The sync exchange (SECURITY.md §19.9) as a channel service of the daemon: each request goes to
/// the `SyncResponder`. A refusal in the exchange's terms goes back as `peerRefused` whose text
/// starts with its code in brackets ("[notShared] …"), which `ChannelSyncTransport` reads back, so
/// the asking side knows why in the exchange's own codes.
public struct SyncChannelService: ChannelService {
    public let responder: SyncResponder

    public init(vault: UnlockedVault, coordinator: SyncCoordinator? = .shared) {
        responder = SyncResponder(vault: vault, coordinator: coordinator)
    }

    public var requestKinds: [String] { SyncWire.kinds }

    public func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        do {
            return try responder.respond(to: kind, body: body, from: peer)
        } catch let error as SyncExchangeError {
            throw PeerChannelError(.peerRefused, "[\(error.code.rawValue)] \(error.message)")
        } catch let error as SyncError {
            throw PeerChannelError(.peerRefused, "[\(error.code.rawValue)] \(error.message)")
        }
    }
}

/// A channel client as the exchange's transport: a refusal the sync service explained with its code
/// is thrown as that `SyncExchangeError`.
public final class ChannelSyncTransport: SyncTransport {
    public let client: ChannelRequesting

    public init(_ client: ChannelRequesting) { self.client = client }

    public var peer: DeviceProfile { client.peer }

    public func request(_ kind: String, body: [UInt8]) throws -> [UInt8] {
        do {
            return try client.request(kind, body: body)
        } catch let error as PeerChannelError where error.code == .peerRefused {
            throw Self.exchangeError(error) ?? error
        }
    }

    /// "NAME refused 'KIND': [code] text" → the code's error with the text.
    static func exchangeError(_ error: PeerChannelError) -> SyncExchangeError? {
        guard let open = error.message.range(of: ": ["), let close = error.message[open.upperBound...].firstIndex(of: "]"),
              let code = SyncExchangeErrorCode(rawValue: String(error.message[open.upperBound..<close])) else { return nil }
        return SyncExchangeError(code, "\(error.message[..<open.lowerBound]): \(error.message[error.message.index(after: close)...].drop(while: { $0 == " " }))")
    }
}
