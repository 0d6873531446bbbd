import CryptoVault

/// The one error type of PeerChannel: a code that tests and callers match on, and a message for people.
/// Messages never contain frame contents, keys or codes; equality compares codes only.
public typealias PeerChannelError = CodedError<PeerChannelErrorCode>

/// What went wrong, for callers and tests to match on.
public enum PeerChannelErrorCode: String, Sendable {
    /// A message longer than a frame can carry.
    case messageTooLarge
    /// A peer announced a frame longer than this side accepts.
    case frameTooLarge
    /// The stream ended in the middle of a frame.
    case truncatedFrame
    /// A setting outside the range it must be in.
    case invalidConfiguration

    // MARK: CPace

    /// A CPace message that does not parse: bad length prefix, wrong element size, trailing bytes.
    case malformedPairingMessage
    /// The peer's CPace share is not the canonical encoding of a ristretto255 element.
    case invalidGroupElement
    /// The peer's CPace share is the identity element (it would fix the shared secret in advance).
    case identityGroupElement
    /// The peer's associated data names another protocol version.
    case unsupportedProtocolVersion
    /// The peer's associated data claims this side's role: a reflected or misrouted message.
    case reflectedPairingMessage

    // MARK: Noise

    /// A handshake message failed authentication: altered, or the peers hold different keys or PSKs.
    case handshakeAuthenticationFailed
    /// A handshake message is too short for the tokens it must carry.
    case malformedHandshakeMessage
    /// A handshake step called out of turn (writing when the peer must speak, or after the end).
    case handshakeOutOfOrder
    /// A Diffie-Hellman public key that is a low-order point.
    case invalidPublicKey
    /// A transport message failed authentication at the nonce expected next: altered, replayed or
    /// reordered. The receiving direction stays closed afterwards.
    case messageAuthenticationFailed
    /// A cipher state reached the reserved nonce 2^64-1; the channel must end.
    case nonceExhausted
    /// A cryptographic primitive could not run (libsodium unavailable, no locked memory left).
    case primitiveFailure

    // MARK: Pairing (SECURITY.md §9.7)

    /// A typed pairing code that is not 10 Crockford base32 symbols.
    case invalidPairingCode
    /// The two sides hold different codes: the host's handshake check or the joiner's first transport
    /// message failed, or the host said so.
    case wrongPairingCode
    /// The code is older than its 5-minute lifetime.
    case pairingCodeExpired
    /// The code has been used: 3 failed attempts, or a completed pairing.
    case pairingCodeExhausted
    /// The peer's confirmation does not match what the handshake authenticated: its Noise key, its
    /// device id (from its keys and from CPace) or its signature.
    case peerIdentityMismatch
    /// The peer refused the pairing for a reason this side did not see (its refusal is unauthenticated).
    case pairingRefused
    /// The owner stopped waiting for a device on this side (the console's Cancel).
    case pairingCancelled
    /// The peer said nothing within the time allowed.
    case timedOut
    /// The peer closed the connection before the pairing ended.
    case connectionClosed
    /// A socket call failed (the address is in use, nothing listens there, the network is down).
    case connectionFailed

    // MARK: Channel (SECURITY.md §9.9, §9.10)

    /// The peer's Noise static key is not pinned by a pairing on this device (never paired, revoked,
    /// or not the device this side meant to reach). Found before any application data is read.
    case unpinnedPeer
    /// The peer refused this device's static key: it has no pairing with this device (or revoked it).
    case unknownToPeer
    /// The peer serves as many paired connections as it allows; try again later.
    case channelBusy
    /// A channel message that breaks the message layer: unknown type, bad label, a record of the wrong
    /// length, a type the sender may not send.
    case malformedChannelMessage
    /// A request kind no service on the peer answers.
    case unknownRequestKind
    /// The peer refused a request with a code this side does not know.
    case peerRefused
    /// A service failed with an error that is not a PeerChannelError (its message is not sent).
    case serviceFailed
    /// A UDP announcement that does not parse (SECURITY.md §9.10).
    case malformedAnnouncement

    // MARK: Replication (SECURITY.md §9.13)

    /// A replication request or answer that does not parse: a wrong length, a field out of range,
    /// entries out of order, trailing bytes.
    case malformedReplicationMessage
    /// The asking device is not (or no longer) paired with this vault.
    case replicationSourceUnpaired
    /// An announced bundle is longer than this device keeps for a peer.
    case replicaTooLarge
    /// Keeping an announced bundle would take the peer's replicas past the space this device gives it.
    case replicaQuotaExceeded
    /// A chunk that is not the next one expected: for a bundle not announced or already complete, at
    /// another offset than the bytes received so far, or past the announced length.
    case replicaOutOfOrder
    /// The received bundle's SHA-256 is not the one announced: altered or truncated in transit, or the
    /// source's file changed during the transfer. The partial copy is discarded.
    case replicaDigestMismatch
    /// The received bytes do not start with a bundle header of the announced vault and bundle id.
    case replicaNotABundle
    /// A replica this device does not hold complete (or whose file is gone).
    case replicaNotFound
    /// A copy fetched from a peer did not verify as the bundle this vault lists (id, header, keys, payload).
    case restoreVerificationFailed

    // MARK: Witnessing (SECURITY.md §9.11)

    /// A witness request or answer that does not parse: a bad version, a length out of bounds,
    /// trailing bytes, a note or line that is not well formed.
    case malformedWitnessMessage
    /// The device on the other end is not (or no longer) paired with this vault.
    case peerNotPaired
    /// A checkpoint of another log (origin or genesis key) than the one this witness pinned for the peer.
    case unknownLog
    /// The key transitions do not lead from the pinned epoch's key to a key, one epoch at a time,
    /// each signed by the one before, or they claim checkpoints outside the range being witnessed.
    case keyChainBroken
    /// The checkpoint's signature does not verify with the key the transitions lead to.
    case checkpointSignatureInvalid
    /// The log's old size is not the size this witness last cosigned (the witness answers its own).
    case oldSizeMismatch
    /// The checkpoint is smaller than one this witness already cosigned: the log was cut back.
    case checkpointRollback
    /// A second tree head for a size already cosigned, or a key that signed a second checkpoint: the
    /// log forked.
    case checkpointFork
    /// The consistency proof does not lead from the cosigned tree head to the new one.
    case inconsistentCheckpoint
    /// The witness answered with a cosignature that does not verify with its pinned key.
    case cosignatureInvalid

    // MARK: Sharing (SECURITY.md §9, "Sharing compartments"): why a recipient refused a grant

    /// The grant does not parse.
    case shareGrantMalformed
    /// The grant names another device as its recipient (or this vault as its source).
    case shareGrantMisaddressed
    /// The grant's sender is not a paired device.
    case shareSenderNotPaired
    /// The grant was signed by a device other than the one on the channel.
    case shareSenderMismatch
    /// The grant's signature is not the sender's pinned key's: forged or altered.
    case shareGrantBadSignature
    /// A key in the grant does not open for the recipient.
    case shareGrantKeyRejected
    /// The grant is older than the one the recipient already holds for the compartment.
    case shareGrantStale
    /// The recipient already has another compartment of that name.
    case shareNameTaken
    /// The recipient could not take the grant for another reason (its message says which), or its
    /// answer was not the receipt of the grant sent.
    case shareGrantRefused

    // MARK: Egress
    /// The clearance the egress funnel gave is not for the bytes about to be sent (another
    /// destination, compartment, size or digest): nothing was sent (SECURITY.md §10.5).
    case egressNotCleared

    // MARK: Whole-vault copies (SECURITY.md §13.6)
    /// A whole-vault copy failed the keyless check (container, public record, audit log), or its
    /// log does not extend the copy already kept, or it is not the copy its offer described.
    case vaultCopyRefused
    /// A whole-vault copy older than the one kept (its audit log is shorter): refused.
    case vaultCopyRollback
    /// A whole-vault copy longer than this device keeps for one peer.
    case vaultCopyTooLarge
    /// No whole-vault copy is kept for that device.
    case vaultCopyNotFound
    /// A chunk of a whole-vault copy out of order, or with no offer before it.
    case vaultCopyOutOfOrder
    /// The copy arrived with another SHA-256 than announced.
    case vaultCopyDigestMismatch
}

extension PeerChannelError {
    /// Runs CryptoVault primitives, whose own failures (no locked memory, libsodium missing) become
    /// `.primitiveFailure`; a `PeerChannelError` thrown inside passes through unchanged. Callers catch
    /// the primitive errors that mean something at this layer (a bad tag, a bad point) before this.
    static func wrappingPrimitives<Result>(_ body: () throws -> Result) throws(PeerChannelError) -> Result {
        do {
            return try body()
        } catch let error as PeerChannelError {
            throw error
        } catch {
            throw PeerChannelError(.primitiveFailure, "a cryptographic primitive failed: \(error)")
        }
    }
}
