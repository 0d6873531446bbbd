import CryptoVault

/// The sending side of replication (SECURITY.md §9.13): gives a paired device a copy of every stored
/// bundle it lacks, as ciphertext it cannot open. The peer's inventory says what it holds; a bundle
/// it holds byte for byte is skipped, a partial one continues where it stopped.
public struct Replicator {
    /// The chunks sent ahead of their answers: while the keeper writes, hashes and fsyncs one, the
    /// next is read, encrypted and on its way. Two suffice: on loopback the connection's buffers hold
    /// about one more chunk, so a third waits in the source's write (a window of 3 measured no faster).
    /// The source holds one chunk buffer whatever the window.
    static let chunksInFlight = 2

    public let vault: UnlockedVault
    public let channel: ChannelRequesting
    /// The egress funnel: each bundle's ciphertext is cleared for the peer before a byte of it goes.
    public let clearing: any EgressClearing

    public init(vault: UnlockedVault, channel: ChannelRequesting, clearing: any EgressClearing) {
        self.vault = vault
        self.channel = channel
        self.clearing = clearing
    }

    /// Sends what the peer lacks of every stored bundle, or of `compartment`'s only. `progress` sees
    /// the bytes sent so far. Each bundle sent is recorded (`replica.send`) once the peer verified it.
    public func replicate(compartment: VaultCompartment? = nil, progress: (UInt64) -> Void = { _ in }) throws -> ReplicationReport {
        let inventory = try channel.replicaInventory(of: vault.vault.vaultID)
        var report = ReplicationReport()
        let bundles = try vault.storedBundles(in: compartment)
        // Each file is hashed (to announce its SHA-256) while the one before it is sent.
        var next = bundles.first.map(hashing)
        for index in bundles.indices {
            guard let current = next else { break }
            next = index + 1 < bundles.count ? hashing(bundles[index + 1]) : nil
            let (file, digest) = try current.value()
            if let held = inventory[file.bundle.bundleID], held.isComplete, held.length == file.length, held.sha256 == digest {
                report.unchangedBundles += 1
                continue
            }
            try send(file, digest: digest, report: &report, progress: progress)
        }
        return report
    }

    private func hashing(_ bundle: StoredBundle) -> Prefetched<(OutgoingBundleFile, [UInt8])> {
        Prefetched { [vault] in
            let file = try OutgoingBundleFile(bundle, in: vault)
            return (file, try file.sha256())
        }
    }

    private func send(_ file: OutgoingBundleFile, digest: [UInt8], report: inout ReplicationReport,
                      progress: (UInt64) -> Void) throws {
        // A replica is ciphertext the leak guard cannot read: the funnel decides on its metadata,
        // and a privileged compartment's bundles leave only as its policy allows (SECURITY.md §10.5).
        _ = try OutboundClearance.require(CiphertextEgress(destination: .pairedDevice(channel.peer.deviceID),
                                                           compartmentIDs: [file.bundle.compartment.id], size: file.length, sha256: digest),
                                          from: clearing)
        let announcement = ReplicaAnnouncement(vaultID: vault.vault.vaultID, bundleID: file.bundle.bundleID,
                                               length: file.length, sha256: digest)
        let start = try ReplicationWire.parseReceived(try channel.request(ReplicationWire.announceKind, body: announcement.serialized()),
                                                      atMost: file.length)
        guard start < file.length else {
            report.unchangedBundles += 1
            return
        }
        var chunks = OutgoingChunks(of: file, from: start)
        try channel.requests(ReplicationWire.chunkKind, window: Self.chunksInFlight, bodies: { try chunks.nextBody() }) { index, answer in
            let end = chunks.end(ofChunk: index)
            let acknowledged = try ReplicationWire.parseReceived(answer, atMost: file.length)
            guard acknowledged == end else {
                throw PeerChannelError(.malformedReplicationMessage, "the peer acknowledged \(acknowledged) bytes after a chunk ending at \(end)")
            }
            progress(report.bytesSent + end - start)
        }
        report.bytesSent += file.length - start
        report.sentBundles.append(file.bundle.bundleID)
        try vault.record(VaultEvent(.replicaSend, compartmentID: file.bundle.compartment.id, subject: file.bundle.bundleID,
                                    details: ReplicationAudit.details(peer: channel.peer, bytes: file.length - start)))
    }
}
