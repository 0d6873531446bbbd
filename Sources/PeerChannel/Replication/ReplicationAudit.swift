import CryptoVault

/// The audit entries of replication and restore (SECURITY.md §8.1, §9.13): the peer is named by its
/// fingerprint and the byte count is decimal, both sealed like every detail.
enum ReplicationAudit {
    static func details(peer: DeviceProfile, bytes: UInt64) -> [VaultEvent.Detail] {
        [.init("peer", peer.fingerprint), .init(UnlockedVault.bytesDetailName, String(bytes))]
    }
}
