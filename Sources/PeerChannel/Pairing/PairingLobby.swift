import CryptoVault

/// Where `pair host` keeps connections until they start an attempt (SECURITY.md §9.7). A joiner
/// sends its opening message as soon as it connects, so the host serves, one at a time, only
/// connections that have sent something; one that stays silent for `openingSeconds` is dropped, and
/// at most `capacity` wait (the oldest goes first). Silent connections therefore cost an honest
/// joiner nothing: before, the host served them in turn, each until its 30 s deadline, and two of
/// them outlasted the joiner's own.
public final class PairingLobby {
    public static let defaultOpeningSeconds = 5.0
    public static let defaultCapacity = 16

    private let listener: TCPListener
    private let maximumFrameLength: Int
    private let timeoutSeconds: Double
    private let openingSeconds: Double
    private let capacity: Int
    /// Read for its monotonic seconds (the time waited, the silence allowed), never the wall clock.
    private let clock: VaultClock
    private var waiting: [(connection: TCPConnection, since: Double)] = []

    /// Connections accepted on `listener` get `timeoutSeconds` for their whole attempt, from acceptance.
    public init(listener: TCPListener, maximumFrameLength: Int, timeoutSeconds: Double,
                openingSeconds: Double = defaultOpeningSeconds, capacity: Int = defaultCapacity, clock: VaultClock = .system) {
        self.listener = listener
        self.maximumFrameLength = maximumFrameLength
        self.timeoutSeconds = timeoutSeconds
        self.openingSeconds = openingSeconds
        self.capacity = max(1, capacity)
        self.clock = clock
    }

    /// The first waiting connection that has sent something (or closed: serving it reports that),
    /// or nil if none has within `waitSeconds`.
    public func next(waitSeconds: Double) throws(PeerChannelError) -> TCPConnection? {
        let end = clock.monotonic() + max(0, waitSeconds)
        repeat {
            dropSilent()
            let descriptors = [listener.pollDescriptor] + waiting.map(\.connection.pollDescriptor)
            let ready = try SocketCalls.readable(descriptors, milliseconds: milliseconds(until: min(end, clock.monotonic() + 0.1)))
            if let first = ready.first(where: { $0 > 0 }) { return waiting.remove(at: first - 1).connection }
            if ready.contains(0) { try admit() }
        } while clock.monotonic() < end
        return nil
    }

    private func admit() throws(PeerChannelError) {
        guard let connection = try listener.accept(waitSeconds: 0, maximumFrameLength: maximumFrameLength,
                                                   timeoutSeconds: timeoutSeconds) else { return }
        if waiting.count >= capacity { waiting.removeFirst() }
        waiting.append((connection, clock.monotonic()))
    }

    /// Closes the connections that said nothing within `openingSeconds` of their acceptance.
    private func dropSilent() {
        let now = clock.monotonic()
        waiting.removeAll { now - $0.since > openingSeconds }
    }

    private func milliseconds(until end: Double) -> Int32 {
        let left = end - clock.monotonic()
        return left <= 0 ? 0 : Int32(min(left * 1000, Double(Int32.max)))
    }
}
