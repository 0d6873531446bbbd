import AuditChain
import CryptoVault

/// The answering side of replication and restore (SECURITY.md §9.13): keeps the bundles paired
/// devices send, as ciphertext it cannot open, and gives them back to the device they came from.
///
/// Every request is refused unless its sender is paired with this vault right now; a device sees and
/// fetches only its own replicas. Bounds: the policy's per-bundle and per-source sizes, checked at the
/// announcement, before any byte is accepted; chunks only in order and within the announced length;
/// a bundle is kept only once its SHA-256 is the announced one and its header names the announced
/// vault and bundle.
public struct ReplicationService: ChannelService {
    public let vault: UnlockedVault
    public let policy: ReplicaPolicy
    private let transfers = ReplicaTransfers()

    public init(vault: UnlockedVault, policy: ReplicaPolicy = ReplicaPolicy()) {
        self.vault = vault
        self.policy = policy
    }

    public var requestKinds: [String] { ReplicationWire.kinds }

    var store: ReplicaStore { ReplicaStore(vault: vault) }

    public func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        try requirePairing(with: peer)
        switch kind {
        case ReplicationWire.inventoryKind:
            let request = try ReplicaInventory.Request(parsing: body)
            return ReplicaInventory.serialize(try store.inventory(source: peer.deviceID, request: request))
        case ReplicationWire.announceKind:
            return ReplicationWire.received(try accept(try ReplicaAnnouncement(parsing: body), from: peer))
        case ReplicationWire.chunkKind:
            return ReplicationWire.received(try receive(try ReplicaChunk(parsing: body), in: body, from: peer))
        case ReplicationWire.fetchKind:
            return try ReplicaReturn(store: store).answer(try ReplicaFetch(parsing: body), for: peer)
        default:
            throw PeerChannelError(.malformedReplicationMessage, "the replication service does not answer '\(kind)'")
        }
    }

    /// The channel pinned `peer` when it connected; the pairing may have been revoked since.
    private func requirePairing(with peer: DeviceProfile) throws {
        guard try vault.vault.familyPairings().contains(where: { $0.peer.deviceID == peer.deviceID }) else {
            throw PeerChannelError(.replicationSourceUnpaired, "device \(peer.fingerprint) is not paired with this vault")
        }
    }

    // MARK: Announcements

    /// The bytes already held of the announced bundle, after checking the bounds. A transfer that
    /// resumes continues from the bytes known durable; any state beyond them is dropped.
    private func accept(_ announcement: ReplicaAnnouncement, from peer: DeviceProfile) throws -> UInt64 {
        let existing = try store.record(source: peer.deviceID, bundleID: announcement.bundleID)
        if let existing { transfers.forget(existing) }
        if let existing, existing.matches(announcement) {
            return existing.isComplete ? existing.length : try store.resumePoint(of: existing)
        }
        try checkBounds(announcement, from: peer)
        return try store.start(announcement, source: peer.deviceID).received
    }

    /// A new replica must be long enough to be a bundle, short enough for the policy, and fit in what
    /// this device keeps for the peer, in bytes and in number.
    private func checkBounds(_ announcement: ReplicaAnnouncement, from peer: DeviceProfile) throws {
        guard announcement.length >= UInt64(BundleHeader.minimumSize) else {
            throw PeerChannelError(.replicaNotABundle, "a bundle of \(announcement.length) bytes cannot hold a bundle header")
        }
        guard announcement.length <= policy.maximumBundleLength else {
            throw PeerChannelError(.replicaTooLarge,
                                   "a bundle of \(announcement.length) bytes is refused: this device keeps bundles of at most \(policy.maximumBundleLength) bytes")
        }
        let kept = try store.kept(for: peer.deviceID, apartFrom: announcement.bundleID)
        guard kept.count < policy.maximumReplicasPerSource, kept.bytes <= policy.maximumBytesPerSource,
              announcement.length <= policy.maximumBytesPerSource - kept.bytes else {
            throw PeerChannelError(.replicaQuotaExceeded,
                                   "this device already keeps \(kept.count) replicas of \(kept.bytes) bytes for \(peer.fingerprint), of at most \(policy.maximumReplicasPerSource) and \(policy.maximumBytesPerSource)")
        }
    }

    // MARK: Chunks

    /// Writes one chunk and returns the bytes now held; fsyncs and counts them every sync interval;
    /// on the last chunk, fsyncs and verifies the bundle.
    private func receive(_ chunk: ReplicaChunk, in body: [UInt8], from peer: DeviceProfile) throws -> UInt64 {
        guard let record = try store.record(source: peer.deviceID, bundleID: chunk.bundleID), !record.isComplete else {
            throw PeerChannelError(.replicaOutOfOrder, "a chunk of bundle \(chunk.bundleID.hex), which is not being received")
        }
        let transfer = try transfers.take(for: record, partialPath: store.partialPath(record))
        guard chunk.offset == transfer.written, chunk.end <= record.length else {
            transfers.putBack(transfer, for: record)
            throw PeerChannelError(.replicaOutOfOrder,
                                   "a chunk of bytes \(chunk.offset)..<\(chunk.end), but \(transfer.written) of \(record.length) are held")
        }
        if chunk.offset == 0 { try checkHeader(Array(body[chunk.dataRange].prefix(BundleHeader.maximumSize)), of: record) }
        try writeAndHash(chunk, in: body, of: record, into: transfer)
        if chunk.end == record.length {
            try store.makeDurable(record, upTo: chunk.end)
            try finish(record, digest: transfer.finalize(), from: peer)
        } else {
            if chunk.end - record.received >= policy.syncInterval { try store.makeDurable(record, upTo: chunk.end) }
            transfers.putBack(transfer, for: record)
        }
        return chunk.end
    }

    /// Writes the chunk's data into the partial file while the transfer's hash takes it in, on two
    /// cores when there are two: they are the keeper's largest costs per byte, neither needs the
    /// other, and the connection's thread is the longest path of a pipelined transfer. A failed write
    /// throws; the transfer is then not put back, so its hash, which took the bytes anyway, is rebuilt
    /// from the durable bytes if the transfer continues.
    private func writeAndHash(_ chunk: ReplicaChunk, in body: [UInt8], of record: ReplicaRecord,
                              into transfer: InProgressTransfer) throws {
        let (store, range) = (store, chunk.dataRange)
        let (written, _) = bothAtOnce({
            try body.withUnsafeBytes { try store.write(UnsafeRawBufferPointer(rebasing: $0[range]), at: chunk.offset, of: record) }
        }, {
            body.withUnsafeBytes { transfer.update(UnsafeRawBufferPointer(rebasing: $0[range])) }
        })
        try written.get()
    }

    /// The first chunk must hold a whole bundle header (every sender sends chunks far longer than a
    /// header), and it must name the announced vault and bundle: anything else is not worth keeping.
    private func checkHeader(_ firstBytes: [UInt8], of record: ReplicaRecord) throws {
        let header = try? BundleHeader(parsing: firstBytes)
        guard let header, header.vaultID == record.vaultID, header.bundleID == record.bundleID,
              UInt64(header.size) <= record.length else {
            try store.discard(record)
            throw PeerChannelError(.replicaNotABundle,
                                   "the first bytes of bundle \(record.bundleID.hex) are not its header in the announced vault")
        }
    }

    private func finish(_ record: ReplicaRecord, digest: [UInt8], from peer: DeviceProfile) throws {
        guard digest == record.sha256 else {
            try store.discard(record)
            throw PeerChannelError(.replicaDigestMismatch,
                                   "bundle \(record.bundleID.hex) arrived with another SHA-256 than announced; the copy is discarded")
        }
        try store.complete(record, recording: VaultEvent(.replicaReceive, subject: record.bundleID,
                                                         details: ReplicationAudit.details(peer: peer, bytes: record.length)))
    }
}
