import CryptoVault

/// The steps of SECURITY.md §9.7's exchange that every use of it shares: a pairing (§9.7) and a
/// whole-vault handover (§13.6) run the same CPace on the one-time code, then the same Noise_XXpsk3
/// keyed by it, and differ only in their labels (CPace's channel identifier and Noise's prologue),
/// so a code issued for one can never serve the other.
enum PairingSteps {
    /// The responder's side, from the initiator's opening to the transport keys: reads the opening,
    /// answers CPace on `code`, then runs the Noise_XXpsk3 handshake with `keys`' static key and the
    /// PSK CPace gave. Returns the transport and the peer's identifier from CPace's AD, which the
    /// caller checks against what the handshake authenticated. `usedCode` turns true as soon as the
    /// peer can test one guess of the code (its lease must count the attempt from there).
    static func respond(over connection: TCPConnection, code: PairingCode, channelIdentifier: [UInt8], prologue: [UInt8],
                        keys: DeviceKeys, usedCode: inout Bool) throws(PeerChannelError)
        -> (transport: NoiseTransport, peerIdentifier: [UInt8]) {
        let opening = try PairingWire.parseOpening(try PairingWire.receive(from: connection))
        let (reply, cpaceKeys) = try CPaceResponder.respond(
            to: opening.cpaceMessage, password: code.canonicalBytes, channelIdentifier: channelIdentifier,
            sessionIdentifier: opening.sessionIdentifier,
            associatedData: PairingBinding.associatedData(role: .responder, deviceIdentifier: keys.profile.deviceID.bytes))
        let peerIdentifier = try PairingBinding.peerDeviceIdentifier(in: cpaceKeys.peerAssociatedData, ownRole: .responder)
        // From here the peer can test one guess of the code, so the attempt counts.
        usedCode = true
        try connection.writeFrame(reply)
        var handshake = try NoiseHandshake(pattern: .xxpsk3, role: .responder, prologue: prologue,
                                           staticKey: keys.noiseKey, presharedKey: PairingBinding.presharedKey(from: cpaceKeys))
        try read(&handshake, from: connection)
        try connection.writeFrame(try handshake.writeMessage())
        try readFinal(&handshake, from: connection)
        return (try handshake.transport(), peerIdentifier)
    }

    /// Reads a handshake message whose payload must be empty (version 1 sends none: nothing in a
    /// payload could be trusted before the static key is checked).
    static func read(_ handshake: inout NoiseHandshake, from connection: TCPConnection) throws(PeerChannelError) {
        let payload = try handshake.readMessage(try PairingWire.receive(from: connection))
        guard payload.isEmpty else {
            throw PeerChannelError(.malformedHandshakeMessage, "a pairing handshake message carried a payload; version 1 sends none")
        }
    }

    /// The responder reads message 3, the first keyed by the PSK: failing it means the codes differ.
    static func readFinal(_ handshake: inout NoiseHandshake, from connection: TCPConnection) throws(PeerChannelError) {
        do {
            try read(&handshake, from: connection)
        } catch where error.code == .handshakeAuthenticationFailed {
            throw PeerChannelError(.wrongPairingCode, "the joining device used another code (its last handshake message did not authenticate)")
        }
    }
}
