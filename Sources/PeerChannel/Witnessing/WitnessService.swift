import AuditChain
import CryptoVault

/// This device as a witness of its paired peers' audit logs (SECURITY.md §9.11): it answers
/// `witness.add-checkpoint` requests by running `WitnessCheck`, and cosigns a checkpoint only when
/// it extends the latest one it cosigned for that peer. The new state and the `witness.cosign` audit
/// entry commit in one transaction before the answer leaves; every refusal and conflict is recorded
/// as `witness.refuse` with its reason.
public struct WitnessService: ChannelService {
    public let vault: UnlockedVault
    private let cosigner: Cosigner
    private let clock: VaultClock

    public init(vault: UnlockedVault, keys: DeviceKeys, clock: VaultClock = .system) throws {
        self.vault = vault
        self.cosigner = try WitnessIdentity.cosigner(keys)
        self.clock = clock
    }

    public var requestKinds: [String] { [WitnessRequest.kind] }

    public func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        guard kind == WitnessRequest.kind else {
            throw PeerChannelError(.malformedWitnessMessage, "the witness does not answer \(kind.prefix(ChannelLimits.maximumKindLength))")
        }
        let answer: WitnessAnswer
        do {
            answer = try self.answer(body, from: peer)
        } catch let error as PeerChannelError {
            throw recorded(error, peer: peer)
        }
        // The daemon runs no command end, so the witness's own log is checkpointed here. The answer is
        // already stored; a checkpoint that cannot be made now is made after the next entry (§8.5).
        try? vault.vault.finishCommand()
        return answer.serialized()
    }

    /// Checks, cosigns and stores in one write transaction, so that two requests from the same log
    /// are serialised and the state answered is the state on disk.
    private func answer(_ body: [UInt8], from peer: DeviceProfile) throws -> WitnessAnswer {
        let request = try WitnessRequest(parsing: body)
        return try vault.transaction { tx in
            try Self.requirePaired(peer, in: tx.database)
            let store = WitnessedLogStore(database: tx.database)
            let pinned = try store.log(of: peer.deviceID)
            switch try WitnessCheck(request: request, pinned: pinned).run() {
            case .conflict(let reason):
                let known = pinned?.treeSize ?? 0
                try tx.record(refusal(reason.code, peer: peer, knownSize: known))
                return .conflict(knownSize: known, reason: reason)
            case .verified(let verified):
                let (log, line) = try cosign(verified, request: request)
                try store.store(log, for: peer.deviceID)
                try tx.record(.witnessCosign, subject: peer.deviceID, details: [.init("name", peer.name), .init("size", String(log.treeSize))])
                return .cosigned(line)
            }
        }
    }

    private func cosign(_ verified: WitnessCheck.VerifiedCheckpoint, request: WitnessRequest) throws -> (WitnessedLog, NoteSignature) {
        let timestamp = UInt64(max(0, clock.now()))
        let line = try cosigner.cosign(verified.checkpoint, timestamp: timestamp)
        let cosigned = try SignedNote(body: verified.note.body, signatures: verified.note.signatures + [line])
        let log = WitnessedLog(origin: verified.checkpoint.origin, genesisPublicKey: request.genesisPublicKey, epoch: verified.epoch,
                               epochPublicKey: verified.epochPublicKey, treeSize: verified.checkpoint.treeSize,
                               rootHash: verified.checkpoint.rootHash, cosignedNote: cosigned.serialized(), cosignedAt: timestamp)
        return (log, line)
    }

    /// The channel only lets pinned peers in, but a pairing can be revoked while a connection lasts,
    /// and a witness vouches only for devices it still pairs with, under the keys it pinned.
    static func requirePaired(_ peer: DeviceProfile, in database: Database) throws {
        guard let pairing = try FamilyPairing.stored(deviceID: peer.deviceID, in: database),
              pairing.peer.signingPublicKey == peer.signingPublicKey else {
            throw PeerChannelError(.peerNotPaired, "device \(peer.fingerprint) is not paired with this vault")
        }
    }

    private func refusal(_ code: PeerChannelErrorCode, peer: DeviceProfile, knownSize: UInt64? = nil) -> VaultEvent {
        var details: [VaultEvent.Detail] = [.init("name", peer.name), .init("reason", code.rawValue)]
        if let knownSize { details.append(.init("size", String(knownSize))) }
        return VaultEvent(.witnessRefuse, subject: peer.deviceID, details: details)
    }

    /// Records the refusal in its own transaction (the request's rolled back) and returns the error to
    /// send; if recording fails the refusal still goes out, naming both.
    private func recorded(_ error: PeerChannelError, peer: DeviceProfile) -> PeerChannelError {
        do {
            try vault.record(refusal(error.code, peer: peer))
            return error
        } catch let recordError {
            return PeerChannelError(error.code, "\(error.message) (and the refusal could not be recorded in the audit log: \(recordError))")
        }
    }
}
