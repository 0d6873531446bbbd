import CryptoVault

/// The host's wait for a device (`vaultctl pair host` and the console's devices page): serves one
/// attempt after another from a lobby until a device pairs, the code dies, or `stopping` says to give
/// up. Connections that stay silent wait in the lobby and are dropped there, never served in turn.
extension PairingHost {
    public mutating func serveUntilPaired(on listener: TCPListener, connectionTimeoutSeconds: Double,
                                          stopping: () -> Bool = { false },
                                          onFailedAttempt: (_ peer: String, _ error: PeerChannelError) -> Void) throws -> FamilyPairing {
        let lobby = PairingLobby(listener: listener, maximumFrameLength: Self.maximumFrameLength, timeoutSeconds: connectionTimeoutSeconds)
        while true {
            try lease.checkUsable()
            if stopping() { throw PeerChannelError(.pairingCancelled, "pairing was cancelled on this device") }
            guard let connection = try lobby.next(waitSeconds: min(1, lease.remainingSeconds)) else { continue }
            do {
                return try serve(connection)
            } catch let error as PeerChannelError {
                onFailedAttempt("\(connection.peer)", error)
            }
        }
    }
}
