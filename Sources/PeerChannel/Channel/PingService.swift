import CryptoVault
import Foundation

/// The built-in `ping` service, which every `ChannelServer` runs (`vaultctl peers ping`): it echoes
/// the request body after the responder's clock, so the caller learns that the peer is up and
/// paired, the round-trip time, and how far the two clocks differ.
///
///     request body = echo (0...64 bytes)
///     answer body  = u64be(responder's wall clock, milliseconds since the Unix epoch) || echo
public struct PingService: ChannelService {
    public static let kind = "ping"
    public static let maximumEchoLength = 64

    public var requestKinds: [String] { [Self.kind] }
    let clock: VaultClock

    public init(clock: VaultClock = .system) {
        self.clock = clock
    }

    public func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        guard body.count <= Self.maximumEchoLength else {
            throw PeerChannelError(.messageTooLarge, "a ping carries at most \(Self.maximumEchoLength) bytes, not \(body.count)")
        }
        let now = clock.milliseconds()
        return (0..<8).map { UInt8(truncatingIfNeeded: now >> (56 - 8 * $0)) } + body
    }

    /// The responder's clock and the echo in a ping answer; `.malformedChannelMessage` if it is not one.
    public static func parseAnswer(_ answer: [UInt8]) throws(PeerChannelError) -> (milliseconds: UInt64, echo: [UInt8]) {
        guard (8...(8 + maximumEchoLength)).contains(answer.count) else {
            throw PeerChannelError(.malformedChannelMessage, "a ping answer of \(answer.count) bytes")
        }
        return (answer.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }, Array(answer.dropFirst(8)))
    }
}
