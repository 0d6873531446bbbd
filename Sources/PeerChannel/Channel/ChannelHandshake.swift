import CryptoVault

/// The handshake of a channel between paired devices (SECURITY.md §9.9): Noise_XX with the channel
/// prologue, every handshake payload empty, and each side checking the other's static key against
/// its pins before anything else happens.
///
///     1  I -> R   e                       32 bytes
///     2  R -> I   e, ee, s, es            96 bytes   the initiator checks s against the expected pin
///     3  I -> R   s, se                   64 bytes   the responder looks s up in its pairings
///     4  R -> I   a one-byte refusal, or transport message 0 carrying the message layer's "ready"
///
/// The initiator checks the responder's key before sending message 3, so an impostor never learns
/// which device was calling. Frames are at most `maximumFrameLength` bytes until the handshake ends,
/// so an unauthenticated peer cannot make this side hold more than that.
enum ChannelHandshake {
    /// No handshake frame comes near this (the longest is 96 bytes).
    static let maximumFrameLength = 128

    /// The one-byte refusals of message 4. Not authenticated: they only explain an ending the
    /// receiver would see anyway, so a forged one can do no more than close a connection.
    static let refusals: [(byte: UInt8, sent: PeerChannelErrorCode, received: PeerChannelErrorCode)] = [
        (0x01, .unpinnedPeer, .unknownToPeer), (0x02, .channelBusy, .channelBusy),
    ]

    /// The initiator's side: returns the transport once the responder's key is the expected one.
    /// The responder's "ready" is read by the `SecureChannel` that takes the transport.
    static func initiate(over connection: TCPConnection, localKeys: DeviceKeys, expecting peer: DeviceProfile)
        throws(PeerChannelError) -> NoiseTransport {
        var handshake = try NoiseHandshake(pattern: .xx, role: .initiator, prologue: PairingBinding.channelPrologue,
                                           staticKey: localKeys.noiseKey)
        try connection.writeFrame(handshake.writeMessage())
        try readMessage(&handshake, from: connection)
        guard let key = handshake.remoteStaticKey, constantTimeEquals(key, peer.noisePublicKey) else {
            throw PeerChannelError(.unpinnedPeer, "the device at \(connection.peer) is not \(peer.name) (\(peer.fingerprint)): its key is not the pinned one")
        }
        try connection.writeFrame(handshake.writeMessage())
        return try handshake.transport()
    }

    /// The responder's side up to message 3: the transport and the pairing whose pinned key the
    /// initiator proved. `pinnedPeers` is asked now, for this connection, so a revoked pairing is
    /// refused from the moment it is deleted. An unknown key gets refusal 0x01.
    static func respond(over connection: TCPConnection, localKeys: DeviceKeys,
                        pinnedPeers: () throws -> [FamilyPairing]) throws(PeerChannelError) -> (NoiseTransport, FamilyPairing) {
        var handshake = try NoiseHandshake(pattern: .xx, role: .responder, prologue: PairingBinding.channelPrologue,
                                           staticKey: localKeys.noiseKey)
        try readMessage(&handshake, from: connection)
        try connection.writeFrame(handshake.writeMessage())
        try readMessage(&handshake, from: connection)
        let transport = try handshake.transport()
        guard let pairing = try pairing(pinning: transport.remoteStaticKey, in: pinnedPeers) else {
            refuse(.unpinnedPeer, on: connection)
            throw PeerChannelError(.unpinnedPeer, "\(connection.peer) presented a static key that no pairing on this device pins")
        }
        return (transport, pairing)
    }

    /// Sends the one-byte refusal for `code`; the connection is about to close, so a failure is moot.
    static func refuse(_ code: PeerChannelErrorCode, on connection: TCPConnection) {
        guard let refusal = refusals.first(where: { $0.sent == code }) else { return }
        try? connection.writeFrame([refusal.byte])
    }

    /// The error a received one-byte refusal names.
    static func refusalError(_ byte: UInt8) -> PeerChannelError {
        switch refusals.first(where: { $0.byte == byte })?.received {
        case .unknownToPeer?: PeerChannelError(.unknownToPeer, "the peer does not know this device: it never paired with it, or revoked the pairing")
        case .channelBusy?: PeerChannelError(.channelBusy, "the peer serves as many connections as it allows; try again later")
        default: PeerChannelError(.peerRefused, "the peer refused the connection")
        }
    }

    /// The pairing whose pinned Noise key is `key`. Every pin is compared, in constant time.
    static func pairing(pinning key: [UInt8], in pinnedPeers: () throws -> [FamilyPairing]) throws(PeerChannelError) -> FamilyPairing? {
        let pairings: [FamilyPairing]
        do {
            pairings = try pinnedPeers()
        } catch {
            throw PeerChannelError(.serviceFailed, "the pinned keys could not be read: \(error)")
        }
        return pairings.reduce(nil) { found, pairing in
            constantTimeEquals(pairing.peer.noisePublicKey, key) ? pairing : found
        }
    }

    /// Reads a handshake message whose payload must be empty: nothing in a payload could be trusted
    /// before the key that came with it is checked, so version 1 sends none.
    private static func readMessage(_ handshake: inout NoiseHandshake, from connection: TCPConnection) throws(PeerChannelError) {
        guard try handshake.readMessage(connection.readFrame()).isEmpty else {
            throw PeerChannelError(.malformedHandshakeMessage, "a channel handshake message carried a payload; version 1 sends none")
        }
    }
}
