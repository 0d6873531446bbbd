import CryptoVault
import Foundation

/// The keeper's side of whole-vault copies (SECURITY.md §13.6): a paired device offers its latest
/// version 2 backup container and sends it in order; this vault keeps the newest one it was given
/// for each device, as ciphertext it cannot open, after checking it with no key.
///
/// Newer means a longer audit log that extends the kept one: every change a vault makes is an entry,
/// and every entry chains to the one before it, so a copy whose log is shorter is an older state
/// (a rollback, refused) and one whose log differs at the kept copy's last entry is another history
/// (refused). Bounds: the offered length, with the replicas already kept for the device, must fit in
/// the replica policy's bytes per device, checked at the offer before any byte is accepted.
public struct VaultCopyService: ChannelService {
    public let vault: UnlockedVault
    public let policy: ReplicaPolicy

    public init(vault: UnlockedVault, policy: ReplicaPolicy = ReplicaPolicy()) {
        self.vault = vault
        self.policy = policy
    }

    public var requestKinds: [String] { VaultCopyWire.kinds }

    var store: VaultCopyStore { VaultCopyStore(vaultDirectory: vault.vault.directory) }

    public func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        guard try vault.vault.familyPairings().contains(where: { $0.peer.deviceID == peer.deviceID }) else {
            throw PeerChannelError(.replicationSourceUnpaired, "device \(peer.fingerprint) is not paired with this vault")
        }
        switch kind {
        case VaultCopyWire.offerKind:
            return ReplicationWire.received(try refusingAudited(peer) { try accept(try VaultCopyOffer(parsing: body), from: peer) })
        case VaultCopyWire.chunkKind:
            return ReplicationWire.received(try refusingAudited(peer) { try receive(try VaultCopyWire.parseChunk(body), from: peer) })
        default:
            throw PeerChannelError(.malformedReplicationMessage, "the vault copy service does not answer '\(kind)'")
        }
    }

    /// A copy refused for what it is (older, another history, failing its check) is recorded as
    /// `vaultcopy.refuse` with the reason's code, then the refusal goes back to the sender.
    private func refusingAudited(_ peer: DeviceProfile, _ body: () throws -> UInt64) throws -> UInt64 {
        do {
            return try body()
        } catch let error as PeerChannelError where Self.isAboutTheCopy(error) {
            store.discardIncoming(from: peer.deviceID)
            try vault.record(VaultEvent(.vaultCopyRefuse, details: [.init("peer", peer.fingerprint), .init("reason", error.code.rawValue)]))
            throw error
        }
    }

    private static func isAboutTheCopy(_ error: PeerChannelError) -> Bool {
        [.vaultCopyRefused, .vaultCopyRollback, .vaultCopyTooLarge, .vaultCopyDigestMismatch].contains(error.code)
    }

    // MARK: Offers

    /// 0 (send it all) or the offer's length (this log is kept already), after the checks.
    private func accept(_ offer: VaultCopyOffer, from peer: DeviceProfile) throws -> UInt64 {
        if let held = store.held(for: peer.deviceID) {
            try checkNewer(offer, than: held)
            if offer.entries == held.entries { return offer.length }
        }
        try checkBounds(offer, from: peer)
        try store.start(offer, source: peer.deviceID)
        return 0
    }

    /// Refuses another vault's copy, a shorter log (rollback), and the same length of log with
    /// another last entry (another history).
    private func checkNewer(_ offer: VaultCopyOffer, than held: VaultCopyStore.Held) throws {
        guard try store.vaultID(of: held) == offer.vaultID else {
            throw PeerChannelError(.vaultCopyRefused, "the copy kept for this device is of another vault; refused")
        }
        guard offer.entries >= held.entries else {
            throw PeerChannelError(.vaultCopyRollback,
                                   "this device keeps a copy whose audit log has \(held.entries) entries; a copy of \(offer.entries) is older and is refused (rollback)")
        }
        guard offer.entries > held.entries || offer.lastLeafHash == held.lastLeafHash else {
            throw PeerChannelError(.vaultCopyRefused, "the copy's audit log of \(offer.entries) entries is another history than the kept one of as many")
        }
    }

    private func checkBounds(_ offer: VaultCopyOffer, from peer: DeviceProfile) throws {
        let replicas = try ReplicaStore(vault: vault).kept(for: peer.deviceID).bytes
        guard replicas <= policy.maximumBytesPerSource, offer.length <= policy.maximumBytesPerSource - replicas else {
            throw PeerChannelError(.vaultCopyTooLarge,
                                   "a vault copy of \(offer.length) bytes is refused: with \(replicas) bytes of replicas it exceeds the \(policy.maximumBytesPerSource) bytes this device keeps for \(peer.fingerprint)")
        }
    }

    // MARK: Chunks

    /// Writes one chunk and returns the bytes now held; after the last, checks and keeps the copy.
    private func receive(_ chunk: (offset: UInt64, data: ArraySlice<UInt8>), from peer: DeviceProfile) throws -> UInt64 {
        guard let offer = try store.pendingOffer(from: peer.deviceID) else {
            throw PeerChannelError(.vaultCopyOutOfOrder, "a vault copy chunk with no offer before it")
        }
        let held = store.incomingLength(from: peer.deviceID)
        let end = chunk.offset + UInt64(chunk.data.count)
        guard chunk.offset == held, end <= offer.length else {
            throw PeerChannelError(.vaultCopyOutOfOrder, "a chunk of bytes \(chunk.offset)..<\(end), but \(held) of \(offer.length) are held")
        }
        try store.write(chunk.data, at: chunk.offset, from: peer.deviceID)
        if end == offer.length { try finish(offer, from: peer) }
        return end
    }

    /// The whole copy arrived: it must be the one offered, check with no key, and still be newer than
    /// the kept one (another connection may have given a newer one meanwhile).
    private func finish(_ offer: VaultCopyOffer, from peer: DeviceProfile) throws {
        try store.syncIncoming(from: peer.deviceID)
        let path = store.incomingPath(peer.deviceID)
        guard try VaultCopyCheck.sha256(of: path) == offer.sha256 else {
            throw PeerChannelError(.vaultCopyDigestMismatch, "the vault copy arrived with another SHA-256 than offered; it is discarded")
        }
        let held = store.held(for: peer.deviceID)
        let (facts, leaf) = try VaultCopyCheck.facts(of: path, leafAt: held.map { $0.entries - 1 })
        guard facts == offer else {
            throw PeerChannelError(.vaultCopyRefused, "the vault copy is refused: it is not the copy its offer described")
        }
        if let held {
            try checkNewer(offer, than: held)
            guard offer.entries > held.entries, leaf == held.lastLeafHash else {
                throw PeerChannelError(.vaultCopyRefused, "the vault copy's audit log does not extend the kept copy's (another history); refused")
            }
        }
        let event = VaultEvent(.vaultCopyReceive, details: Self.details(peer: peer, offer: offer))
        try store.keep(offer, from: peer.deviceID) { rename in
            try vault.transaction { tx in
                try tx.record(event)
                try rename()
            }
        }
    }

    /// The details of a copy's entries on either side: the device, the size, the digest, the log length.
    public static func details(peer: DeviceProfile, offer: VaultCopyOffer) -> [VaultEvent.Detail] {
        details(fingerprint: peer.fingerprint, offer: offer)
    }

    static func details(fingerprint: String, offer: VaultCopyOffer) -> [VaultEvent.Detail] {
        [.init("peer", fingerprint), .init(UnlockedVault.bytesDetailName, String(offer.length)),
         .init("sha256", ByteEncoding.hex(offer.sha256)), .init("entries", String(offer.entries))]
    }
}
