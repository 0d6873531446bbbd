import CryptoVault

/// The sending side of replication (SECURITY.md §9.13): gives a paired device a copy of every stored
/// bundle it lacks, as ciphertext it cannot open. The peer's inventory says what it holds; a bundle
/// it holds byte for byte is skipped, a partial one continues where it stopped.
public struct Replicator {
    public let vault: UnlockedVault
    public let channel: ChannelRequesting

    public init(vault: UnlockedVault, channel: ChannelRequesting) {
        self.vault = vault
        self.channel = channel
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
        let announcement = ReplicaAnnouncement(vaultID: vault.vault.vaultID, bundleID: file.bundle.bundleID,
                                               length: file.length, sha256: digest)
        let start = try ReplicationWire.parseReceived(try channel.request(ReplicationWire.announceKind, body: announcement.serialized()),
                                                      atMost: file.length)
        guard start < file.length else {
            report.unchangedBundles += 1
            return
        }
        var offset = start
        var body = ReplicaChunk.body(bundleID: file.bundle.bundleID, offset: 0,
                                     dataCount: Int(min(UInt64(ReplicaChunk.maximumDataCount), file.length - offset)))
        while offset < file.length {
            offset = try sendChunk(of: file, at: offset, reusing: &body)
            progress(report.bytesSent + offset - start)
        }
        report.bytesSent += file.length - start
        report.sentBundles.append(file.bundle.bundleID)
        try vault.record(VaultEvent("replica.send", compartmentID: file.bundle.compartment.uuid, subjectID: file.bundle.bundleID,
                                    details: ReplicationAudit.details(peer: channel.peer, bytes: file.length - start)))
    }

    /// Sends the chunk at `offset`, read from the file straight into `body` (reused, so the bytes are
    /// not copied again), and returns where the next one starts, as the peer acknowledged it.
    private func sendChunk(of file: OutgoingBundleFile, at offset: UInt64, reusing body: inout [UInt8]) throws -> UInt64 {
        let count = Int(min(UInt64(ReplicaChunk.maximumDataCount), file.length - offset))
        if body.count > ReplicaChunk.headerSize + count { body.removeLast(body.count - ReplicaChunk.headerSize - count) }
        try body.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: offset.bigEndian, toByteOffset: 16, as: UInt64.self)
            try file.readExactly(into: UnsafeMutableRawBufferPointer(rebasing: bytes[ReplicaChunk.headerSize...]), at: offset)
        }
        let end = offset + UInt64(count)
        let acknowledged = try ReplicationWire.parseReceived(try channel.request(ReplicationWire.chunkKind, body: body), atMost: file.length)
        guard acknowledged == end else {
            throw PeerChannelError(.malformedReplicationMessage, "the peer acknowledged \(acknowledged) bytes after a chunk ending at \(end)")
        }
        return end
    }
}
