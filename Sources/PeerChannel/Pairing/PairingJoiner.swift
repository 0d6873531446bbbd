import CryptoVault

/// The joining side of pairing (`vaultctl pair join`, the initiator of SECURITY.md §9.7).
public struct PairingJoiner: Sendable {
    public let vault: UnlockedVault
    public let keys: DeviceKeys
    /// The clock that stamps the pairing (whole seconds since the Unix epoch).
    let clock: VaultClock

    public init(vault: UnlockedVault, keys: DeviceKeys, clock: VaultClock = .system) {
        self.vault = vault
        self.keys = keys
        self.clock = clock
    }

    /// Pairs over `connection` with the code the person typed. The pairing is stored only after the
    /// host's confirmation authenticated (proving the host held the same code) and its "stored"
    /// arrived; any failure is audited and thrown.
    public func join(_ connection: TCPConnection, code: PairingCode) throws -> FamilyPairing {
        do {
            return try attempt(connection, code: code)
        } catch let error as PeerChannelError {
            if error.code == .peerIdentityMismatch || error.code == .reflectedPairingMessage {
                try? connection.writeFrame(PairingWire.refusal(for: error.code))
            }
            throw try PairingRecorder.failure(error, in: vault)
        }
    }

    private func attempt(_ connection: TCPConnection, code: PairingCode) throws -> FamilyPairing {
        let sessionIdentifier = try PairingBinding.newSessionIdentifier()
        let cpace = try CPaceInitiator(
            password: code.canonicalBytes, channelIdentifier: PairingBinding.channelIdentifier, sessionIdentifier: sessionIdentifier,
            associatedData: PairingBinding.associatedData(role: .initiator, deviceIdentifier: keys.profile.deviceID.bytes))
        try connection.writeFrame(PairingWire.opening(sessionIdentifier: sessionIdentifier, cpaceMessage: cpace.message))
        let cpaceKeys = try cpace.receive(responderMessage: try PairingWire.receive(from: connection))
        let hostID = try PairingBinding.peerDeviceIdentifier(in: cpaceKeys.peerAssociatedData, ownRole: .initiator)
        var handshake = try NoiseHandshake(pattern: .xxpsk3, role: .initiator, prologue: PairingBinding.pairingPrologue,
                                           staticKey: keys.noiseKey, presharedKey: PairingBinding.presharedKey(from: cpaceKeys))
        try connection.writeFrame(try handshake.writeMessage())
        try PairingSteps.read(&handshake, from: connection)
        try connection.writeFrame(try handshake.writeMessage())
        var transport = try handshake.transport()
        let confirmation = try openFirst(&transport, from: connection)
        let profile = try PairingConfirmation.verify(confirmation, ownRole: .initiator, handshakeHash: transport.handshakeHash,
                                                     remoteStaticKey: transport.remoteStaticKey, cpaceDeviceID: hostID)
        try connection.writeFrame(try transport.seal(
            PairingConfirmation.encode(keys: keys, role: .initiator, handshakeHash: transport.handshakeHash)))
        guard try transport.open(try PairingWire.receive(from: connection)) == PairingWire.stored else {
            throw PeerChannelError(.malformedPairingMessage, "the host's last message is not 'stored'")
        }
        let pairing = FamilyPairing(peer: profile, role: .join, pairedAt: clock.now())
        try vault.storePairing(pairing)
        return pairing
    }

    /// The host's first transport message: the first thing keyed by the PSK that the joiner reads,
    /// so failing it means the codes differ (§9.4).
    private func openFirst(_ transport: inout NoiseTransport, from connection: TCPConnection) throws(PeerChannelError) -> [UInt8] {
        let message = try PairingWire.receive(from: connection)
        do {
            return try transport.open(message)
        } catch where error.code == .messageAuthenticationFailed {
            throw PeerChannelError(.wrongPairingCode, "the host's confirmation did not authenticate: the code is wrong")
        }
    }
}
