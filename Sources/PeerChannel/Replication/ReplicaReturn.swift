import CryptoVault

/// Gives a device back the bytes of its own complete replicas (restore). A device can fetch only
/// what it sent: the replica is looked up under the asking device's id.
struct ReplicaReturn {
    let store: ReplicaStore

    func answer(_ fetch: ReplicaFetch, for peer: DeviceProfile) throws -> [UInt8] {
        guard let record = try store.record(source: peer.deviceID, bundleID: fetch.bundleID), record.isComplete,
              record.vaultID == fetch.vaultID else {
            throw PeerChannelError(.replicaNotFound, "no complete replica of bundle \(fetch.bundleID.hex) is kept for this device")
        }
        let count = fetch.answerCount(length: record.length)
        guard count > 0 else {
            throw PeerChannelError(.malformedReplicationMessage, "a fetch at offset \(fetch.offset) of a \(record.length)-byte replica")
        }
        let bytes = try read(count, at: fetch.offset, of: record)
        if fetch.offset + UInt64(count) == record.length {
            // The last bytes went out: the replica has been given back in full (as far as this side knows).
            try store.vault.record(VaultEvent(.replicaReturn, subject: record.bundleID,
                                              details: ReplicationAudit.details(peer: peer, bytes: record.length)))
        }
        return bytes
    }

    private func read(_ count: Int, at offset: UInt64, of record: ReplicaRecord) throws -> [UInt8] {
        let file: FileDescriptor
        do {
            file = try FileDescriptor.openForReading(store.completePath(record))
        } catch let error as CryptoVaultError where error.code == .fileNotFound {
            throw PeerChannelError(.replicaNotFound, "the file of replica \(record.bundleID.hex) is gone")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = try bytes.withUnsafeMutableBytes { try file.read(into: $0, at: offset) }
        guard read == count else {
            throw PeerChannelError(.replicaNotFound, "the file of replica \(record.bundleID.hex) is shorter than recorded")
        }
        return bytes
    }
}
