import CryptoVault

/// The host side of pairing (`vaultctl pair host`, the responder of SECURITY.md §9.7): it holds the
/// code's lease and serves one connection at a time until a device pairs or the code dies.
public struct PairingHost: Sendable {
    /// The longest frame either side of a pairing accepts; no pairing message comes near it.
    public static let maximumFrameLength = PairingWire.maximumFrameLength

    public let vault: UnlockedVault
    public let keys: DeviceKeys
    public private(set) var lease: PairingCodeLease
    /// The clock that stamps pairings (whole seconds since the Unix epoch).
    let clock: VaultClock

    public init(vault: UnlockedVault, keys: DeviceKeys, lease: PairingCodeLease, clock: VaultClock = .system) {
        self.vault = vault
        self.keys = keys
        self.lease = lease
        self.clock = clock
    }

    /// One pairing attempt on `connection`. On success the pairing is stored (with its audit entry)
    /// before the joiner is told, and the code is spent. On failure the joiner gets a refusal, the
    /// failure is audited, and the attempt counts against the code if it got as far as CPace.
    public mutating func serve(_ connection: TCPConnection) throws -> FamilyPairing {
        var usedCode = false
        do {
            let pairing = try attempt(connection, usedCode: &usedCode)
            lease.recordSuccess()
            return pairing
        } catch let error as PeerChannelError {
            if usedCode { lease.recordFailure() }
            try? connection.writeFrame(PairingWire.refusal(for: error.code))
            throw try PairingRecorder.failure(error, in: vault)
        }
    }

    private func attempt(_ connection: TCPConnection, usedCode: inout Bool) throws -> FamilyPairing {
        try lease.checkUsable()
        let responded = try PairingSteps.respond(
            over: connection, code: lease.code, channelIdentifier: PairingBinding.channelIdentifier,
            prologue: PairingBinding.pairingPrologue, keys: keys, usedCode: &usedCode)
        var transport = responded.transport
        let joinerID = responded.peerIdentifier
        try connection.writeFrame(try transport.seal(
            PairingConfirmation.encode(keys: keys, role: .responder, handshakeHash: transport.handshakeHash)))
        let profile = try PairingConfirmation.verify(
            try transport.open(try PairingWire.receive(from: connection)), ownRole: .responder,
            handshakeHash: transport.handshakeHash, remoteStaticKey: transport.remoteStaticKey, cpaceDeviceID: joinerID)
        let pairing = FamilyPairing(peer: profile, role: .host, pairedAt: clock.now())
        try vault.storePairing(pairing)
        try connection.writeFrame(try transport.seal(PairingWire.stored))
        return pairing
    }
}
