import CryptoVault

/// Brings back the files of stored bundles a vault lost (SECURITY.md §9.13): the bundles its database
/// still lists whose file is missing or fails verification are fetched from a paired device's
/// replicas and put back only once each verifies as the bundle the vault expects (its id, compartment
/// and size, its header under the vault's keys, every payload chunk).
public struct VaultRestorer {
    public let vault: UnlockedVault
    public let channel: ChannelRequesting

    public init(vault: UnlockedVault, channel: ChannelRequesting) {
        self.vault = vault
        self.channel = channel
    }

    /// Restores every bundle that needs it and the peer holds; the report names the others and why.
    /// `progress` sees the bytes received so far.
    public func restore(progress: (UInt64) -> Void = { _ in }) throws -> RestoreReport {
        var report = RestoreReport()
        let needed = try vault.storedBundlesNeedingRestore()
        guard !needed.isEmpty else { return report }
        let inventory = try channel.replicaInventory(of: vault.vault.vaultID)
        for (bundle, _) in needed {
            guard let replica = inventory[bundle.bundleID], replica.isComplete, replica.length == bundle.sealedLength else {
                report.unavailableBundles.append(bundle.bundleID)
                continue
            }
            do {
                try restore(bundle, from: replica, report: &report, progress: progress)
                report.restoredBundles.append(bundle.bundleID)
            } catch let error as PeerChannelError where Self.isAboutThisCopy(error) {
                report.refusedBundles.append((bundle.bundleID, error))
            }
        }
        return report
    }

    /// Refusals that concern one copy (restore goes on with the next bundle); any other error (the
    /// channel broke, the vault cannot be written) ends the restore.
    private static func isAboutThisCopy(_ error: PeerChannelError) -> Bool {
        [.replicaNotFound, .replicaDigestMismatch, .restoreVerificationFailed].contains(error.code)
    }

    private func restore(_ bundle: StoredBundle, from replica: ReplicaInventory.Entry, report: inout RestoreReport,
                         progress: (UInt64) -> Void) throws {
        let restoring = try vault.beginRestore(of: bundle.bundleID)
        do {
            let digest = try fetch(replica, into: restoring.output, report: &report, progress: progress)
            guard digest == replica.sha256 else {
                throw PeerChannelError(.replicaDigestMismatch, "the copy of bundle \(bundle.idString) does not have the SHA-256 the peer listed")
            }
        } catch {
            vault.abandonRestore(restoring)
            throw error
        }
        do {
            try vault.finishRestore(restoring, details: [.init("peer", channel.peer.fingerprint)])
        } catch let error as CryptoVaultError where error.code != .database && error.code != .io {
            throw PeerChannelError(.restoreVerificationFailed,
                                   "the copy of bundle \(bundle.idString) from \(channel.peer.fingerprint) is refused: \(error.code.rawValue): \(error.message)")
        }
    }

    /// Copies the replica into `output` a body at a time, hashing as it goes; returns the SHA-256.
    private func fetch(_ replica: ReplicaInventory.Entry, into output: FileDescriptor, report: inout RestoreReport,
                       progress: (UInt64) -> Void) throws -> [UInt8] {
        var hasher = SHA256.Hasher()
        var offset: UInt64 = 0
        while offset < replica.length {
            let request = ReplicaFetch(vaultID: vault.vault.vaultID, bundleID: replica.bundleID, offset: offset,
                                       count: ChannelLimits.maximumBodyLength)
            let bytes = try channel.request(ReplicationWire.fetchKind, body: request.serialized())
            guard bytes.count == request.answerCount(length: replica.length) else {
                throw PeerChannelError(.malformedReplicationMessage, "the peer sent \(bytes.count) bytes of bundle \(replica.bundleID.hex) at offset \(offset)")
            }
            try bytes.withUnsafeBytes { bytes in
                hasher.update(bytes)
                try output.write(bytes)
            }
            offset += UInt64(bytes.count)
            report.bytesReceived += UInt64(bytes.count)
            progress(report.bytesReceived)
        }
        return hasher.finalize()
    }
}
