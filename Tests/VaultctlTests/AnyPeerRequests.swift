@testable import Appliance
import PeerChannel

extension ChannelSyncTransport {
    /// What a paired peer that is not this code may send: any bytes, straight over the channel (a
    /// hostile or broken device). This code's own sends take a `SyncOutgoing` (what the funnel
    /// released); the answering side must still refuse whatever arrives. (SyncExchangeTests has the same.)
    func requestAsAnyPeer(_ kind: String, body: [UInt8]) throws -> [UInt8] {
        do {
            return try client.request(kind, body: body)
        } catch let error as PeerChannelError where error.code == .peerRefused {
            throw Self.exchangeError(error) ?? error
        }
    }
}
