import CryptoVault
import Dispatch
import Foundation
import Synchronization

/// The listening side of the channel (SECURITY.md §9.9): accepts connections, runs each handshake as
/// the responder, admits only devices whose static key a pairing pins (asked per connection, so a
/// revoked pairing is refused at once), and answers their requests with the registered services,
/// plus the built-in `ping`.
///
/// One thread accepts; each connection gets its own thread with a small stack. Both kinds of
/// connection are bounded (`Limits`), so the threads are too: at most
/// `maximumUnauthenticatedConnections + maximumAuthenticatedConnections` at a time.
public final class ChannelServer: Sendable {
    /// The channel's default TCP port (pairing uses 7420).
    public static let defaultPort: UInt16 = 7421

    public struct Limits: Sendable {
        public var timeouts: ChannelTimeouts
        /// Connections still in their handshake; past this the oldest is evicted.
        public var maximumUnauthenticatedConnections: Int
        /// Connections of paired devices; past this a device is told the server is busy.
        public var maximumAuthenticatedConnections: Int
        /// Connections one paired device holds at once; its next one closes its oldest (F5).
        public var maximumConnectionsPerDevice: Int
        /// Of `maximumAuthenticatedConnections`, the slots only priority devices (the owner's own,
        /// as the daemon says) may take: the others together hold the rest at most (F5).
        public var reservedForPriorityDevices: Int
        /// Connections the kernel queues before they are accepted.
        public var listenBacklog: Int32
        /// Both sides must rekey at the same count; only tests change it.
        var rekeyInterval: UInt64 = NoiseTransport.defaultRekeyInterval

        public init(timeouts: ChannelTimeouts = ChannelTimeouts(), maximumUnauthenticatedConnections: Int = 64,
                    maximumAuthenticatedConnections: Int = 16, maximumConnectionsPerDevice: Int = 4,
                    reservedForPriorityDevices: Int? = nil, listenBacklog: Int32 = 128) {
            self.timeouts = timeouts
            self.maximumUnauthenticatedConnections = maximumUnauthenticatedConnections
            self.maximumAuthenticatedConnections = maximumAuthenticatedConnections
            self.maximumConnectionsPerDevice = maximumConnectionsPerDevice
            // Half of them by default: 8 of the 16.
            self.reservedForPriorityDevices = reservedForPriorityDevices ?? maximumAuthenticatedConnections / 2
            self.listenBacklog = listenBacklog
        }

        func validate() throws(PeerChannelError) {
            try timeouts.validate()
            guard maximumUnauthenticatedConnections > 0, maximumAuthenticatedConnections > 0, maximumConnectionsPerDevice > 0,
                  listenBacklog > 0 else {
                throw PeerChannelError(.invalidConfiguration, "channel connection bounds must be positive")
            }
            guard (0..<maximumAuthenticatedConnections).contains(reservedForPriorityDevices) else {
                throw PeerChannelError(.invalidConfiguration, "the slots reserved for priority devices must be fewer than all paired connections")
            }
        }
    }

    /// What happened to a connection, for the daemon's log and for tests.
    public enum Event: Sendable {
        /// A paired device completed the handshake.
        case authenticated(DeviceProfile, from: SocketAddress)
        /// A connection ended; `peer` is nil if it never authenticated. `reason` is why (a peer that
        /// hung up is `.connectionClosed`).
        case closed(from: SocketAddress, peer: DeviceProfile?, reason: PeerChannelError)
        /// An unauthenticated connection was evicted to make room for a new one.
        case evictedOldestUnauthenticated
    }

    /// The address listened on (with the port the system chose, for port 0).
    public let address: SocketAddress
    private let listener: TCPListener
    private let localKeys: DeviceKeys
    private let pinnedPeers: @Sendable () throws -> [FamilyPairing]
    private let isPriority: @Sendable (DeviceID) -> Bool
    private let dispatcher: ChannelDispatcher
    private let limits: Limits
    private let events: @Sendable (Event) -> Void
    private let registry: ChannelConnectionRegistry
    private let acceptLoopEnded = DispatchSemaphore(value: 0)
    private let running = Atomic<Bool>(false)

    /// Binds `address` at once (so a busy port fails here) but accepts nothing before `start()`.
    /// `pinnedPeers` is called for every handshake, typically `{ try vault.familyPairings() }`;
    /// `isPriority`, once a device authenticated: whether it may take the slots reserved for
    /// priority devices (the daemon: the owner's own devices; by default every device).
    public init(address: SocketAddress, localKeys: DeviceKeys, pinnedPeers: @escaping @Sendable () throws -> [FamilyPairing],
                isPriority: @escaping @Sendable (DeviceID) -> Bool = { _ in true },
                services: [any ChannelService], limits: Limits = Limits(),
                events: @escaping @Sendable (Event) -> Void = { _ in }) throws(PeerChannelError) {
        try limits.validate()
        dispatcher = try ChannelDispatcher(services + [PingService()])
        listener = try TCPListener(address: address, backlog: limits.listenBacklog)
        self.address = listener.address
        self.localKeys = localKeys
        self.pinnedPeers = pinnedPeers
        self.isPriority = isPriority
        self.limits = limits
        self.events = events
        registry = ChannelConnectionRegistry(maximumUnauthenticated: limits.maximumUnauthenticatedConnections,
                                             maximumAuthenticated: limits.maximumAuthenticatedConnections,
                                             maximumPerDevice: limits.maximumConnectionsPerDevice,
                                             reservedForPriority: limits.reservedForPriorityDevices)
    }

    /// Starts accepting on a background thread. A server starts once.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Thread.detachNewThread { [self] in
            acceptLoop()
            acceptLoopEnded.signal()
        }
    }

    /// Stops accepting, shuts down every connection, and waits (up to 5 s) for their threads to end.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        registry.stopAll()
        acceptLoopEnded.wait()
        let clock = VaultClock.system
        let deadline = clock.monotonic() + 5
        while registry.counts != (0, 0), clock.monotonic() < deadline { usleep(10_000) }
    }

    /// Connections held now.
    public var connectionCounts: (unauthenticated: Int, authenticated: Int) { registry.counts }

    private func acceptLoop() {
        while running.load(ordering: .acquiring) {
            do {
                guard let connection = try listener.accept(waitSeconds: 0.2, maximumFrameLength: ChannelHandshake.maximumFrameLength,
                                                           timeoutSeconds: limits.timeouts.handshakeSeconds) else { continue }
                guard let admission = registry.admitUnauthenticated(connection.shutdownHandle) else { return }
                if admission.evictedAnother { events(.evictedOldestUnauthenticated) }
                let handoff = ConnectionHandoff(connection)
                let thread = Thread { [self] in serve(handoff.connection, id: admission.id) }
                thread.stackSize = 1 << 20
                thread.start()
            } catch {
                // accept failed (out of descriptors, say): back off rather than spin.
                usleep(50_000)
            }
        }
    }

    /// One connection, from handshake to close; runs on the connection's own thread.
    private func serve(_ connection: TCPConnection, id: UInt64) {
        withExtendedLifetime(connection) {
            var peer: DeviceProfile?
            do throws(PeerChannelError) {
                let (transport, pairing) = try ChannelHandshake.respond(over: connection, localKeys: localKeys, pinnedPeers: pinnedPeers)
                peer = pairing.peer
                guard registry.promote(id, device: pairing.peer.deviceID, priority: isPriority(pairing.peer.deviceID)) else {
                    ChannelHandshake.refuse(.channelBusy, on: connection)
                    throw PeerChannelError(.channelBusy, "\(pairing.peer.name) was turned away: the paired connections it may use are open")
                }
                let channel = try SecureChannel.respond(over: connection, transport: transport, peer: pairing.peer,
                                                        timeouts: limits.timeouts, rekeyInterval: limits.rekeyInterval)
                events(.authenticated(pairing.peer, from: connection.peer))
                while true {
                    let request = try channel.receive()
                    try endIfRevoked(pairing, on: channel)
                    try channel.send(dispatcher.answer(request, from: pairing.peer))
                }
            } catch {
                events(.closed(from: connection.peer, peer: peer, reason: error))
            }
            // Before the descriptor closes (when `connection` is released), so eviction cannot reach a reused number.
            registry.remove(id)
        }
    }
}

extension ChannelServer {
    /// Reads the pins again before every answer, so a pairing revoked while its device is connected
    /// ends that connection at its next request: the request is refused (`unknownToPeer`, as a
    /// handshake would be) and the connection closes.
    private func endIfRevoked(_ pairing: FamilyPairing, on channel: SecureChannel) throws(PeerChannelError) {
        guard try ChannelHandshake.pairing(pinning: pairing.peer.noisePublicKey, in: pinnedPeers) == nil else { return }
        let revoked = PeerChannelError(.unknownToPeer, "the pairing with \(pairing.peer.name) was revoked while it was connected")
        try? channel.send(.refusal(revoked))
        throw revoked
    }
}

/// Moves a connection from the accept loop to its own thread. The accept loop never touches it
/// again, so only one thread ever uses it, which is what makes the unchecked sendability sound.
private final class ConnectionHandoff: @unchecked Sendable {
    let connection: TCPConnection
    init(_ connection: TCPConnection) { self.connection = connection }
}
