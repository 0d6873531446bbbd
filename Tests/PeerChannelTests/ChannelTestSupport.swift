import CryptoVault
import Dispatch
import Foundation
@testable import PeerChannel
import Synchronization

/// Two devices, each with the other pinned, as after a pairing.
struct PairedDevices {
    let desk: PairingDevice
    let laptop: PairingDevice

    init() throws {
        desk = try PairingDevice("desk")
        laptop = try PairingDevice("laptop")
        try desk.vault.storePairing(FamilyPairing(peer: laptop.keys.profile, role: .host, pairedAt: 1_700_000_000))
        try laptop.vault.storePairing(FamilyPairing(peer: desk.keys.profile, role: .join, pairedAt: 1_700_000_000))
    }
}

/// Test services: "echo" answers the body, "refuse" throws a PeerChannelError, "explode" another error.
struct TestService: ChannelService {
    struct Explosion: Error {}
    var requestKinds: [String] { ["echo", "refuse", "explode"] }

    func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        switch kind {
        case "echo": return body
        case "refuse": throw PeerChannelError(.invalidConfiguration, "refused for \(peer.name)")
        default: throw Explosion()
        }
    }
}

/// What a server reported, in order.
final class ServerEvents: Sendable {
    private let events = Mutex<[ChannelServer.Event]>([])

    func record(_ event: ChannelServer.Event) { events.withLock { $0.append(event) } }

    /// The reasons of the connections that closed so far.
    var closedReasons: [PeerChannelErrorCode] {
        events.withLock { $0.compactMap { if case .closed(_, _, let reason) = $0 { reason.code } else { nil } } }
    }

    var authenticatedPeers: [String] {
        events.withLock { $0.compactMap { if case .authenticated(let peer, _) = $0 { peer.name } else { nil } } }
    }

    var evictions: Int {
        events.withLock { $0.filter { if case .evictedOldestUnauthenticated = $0 { true } else { false } }.count }
    }

    /// Waits (up to 10 s) until `count` connections have closed; returns their reasons.
    func waitForClosed(_ count: Int, seconds: Double = 10) -> [PeerChannelErrorCode] {
        let deadline = DispatchTime.now() + seconds
        while closedReasons.count < count, DispatchTime.now() < deadline { usleep(5_000) }
        return closedReasons
    }
}

/// A running server for `device` that pins what its vault pins, with the test services (or `services`).
final class RunningServer {
    let server: ChannelServer
    let events = ServerEvents()

    init(_ device: PairingDevice, services: [any ChannelService] = [TestService()],
         limits: ChannelServer.Limits = ChannelServer.Limits(), isPriority: @escaping @Sendable (DeviceID) -> Bool = { _ in true }) throws {
        let vault = device.vault.vault
        let events = self.events
        server = try ChannelServer(address: Loopback.any, localKeys: device.keys, pinnedPeers: { try vault.familyPairings() },
                                   isPriority: isPriority, services: services, limits: limits, events: { events.record($0) })
        server.start()
    }

    deinit { server.stop() }

    var address: SocketAddress { server.address }

    /// A client of `device` that expects this server to be `expected` (the server's own device by default).
    func client(_ device: PairingDevice, expecting expected: DeviceProfile, timeouts: ChannelTimeouts = ChannelTimeouts(),
                rekeyInterval: UInt64 = NoiseTransport.defaultRekeyInterval) throws(PeerChannelError) -> ChannelClient {
        try ChannelClient(connectingTo: address, localKeys: device.keys, peer: expected, timeouts: timeouts, rekeyInterval: rekeyInterval)
    }

    /// A connection that sends nothing unless told to (a hostile or idle client).
    func rawConnection() throws(PeerChannelError) -> TCPConnection {
        try TCPConnection.connect(to: address, maximumFrameLength: FrameCodec.maximumMessageLength, timeoutSeconds: 10)
    }
}

/// The error code of whatever `body` threw (nil if it returned).
func errorCode(_ body: () throws -> Void) -> PeerChannelErrorCode? {
    do {
        try body()
        return nil
    } catch let error as PeerChannelError {
        return error.code
    } catch {
        return nil
    }
}

/// A relay between a channel client and a server that passes every frame through, except that the
/// client's frames (numbered from 0: handshake messages 1 and 3 are frames 0 and 1, requests follow)
/// go through `alter`, which returns the frames to send in their place. It plays the attacker on the
/// path: it can drop, duplicate, reorder or change frames, but holds no key.
final class FrameRelay: Sendable {
    let listener: TCPListener

    init(to server: SocketAddress, alter: @escaping @Sendable (Int, [UInt8]) -> [[UInt8]]) throws {
        listener = try TCPListener(address: Loopback.any)
        let listener = self.listener
        Thread.detachNewThread {
            guard let client = try? listener.accept(waitSeconds: 10, maximumFrameLength: 65535, timeoutSeconds: 30),
                  let upstream = try? TCPConnection.connect(to: server, maximumFrameLength: 65535, timeoutSeconds: 30) else { return }
            let pair = RelayPair(client: client, upstream: upstream)
            Thread.detachNewThread { pair.forwardAnswers() }
            pair.forwardRequests(alter)
        }
    }

    var address: SocketAddress { listener.address }
}

/// The two connections of a relay; each direction is used by one thread only.
private final class RelayPair: @unchecked Sendable {
    let client: TCPConnection
    let upstream: TCPConnection

    init(client: TCPConnection, upstream: TCPConnection) {
        self.client = client
        self.upstream = upstream
    }

    func forwardRequests(_ alter: (Int, [UInt8]) -> [[UInt8]]) {
        var index = 0
        while let frame = try? client.readFrame() {
            for replacement in alter(index, frame) {
                guard (try? upstream.writeRaw(FrameCodec.encode(replacement))) != nil else { return }
            }
            index += 1
        }
        upstream.shutdownHandle.shutdown()
    }

    func forwardAnswers() {
        while let frame = try? upstream.readFrame() {
            guard (try? client.writeRaw(FrameCodec.encode(frame))) != nil else { break }
        }
        client.shutdownHandle.shutdown()
    }
}
