import CryptoVault

/// One row of the `replicas` table (SECURITY.md §4.1, migration 8): a bundle of a paired device, kept
/// here as ciphertext this vault cannot open.
struct ReplicaRecord: Sendable, Equatable {
    let sourceDeviceID: DeviceID
    let bundleID: BundleID
    let vaultID: VaultID
    let length: UInt64
    let sha256: [UInt8]
    /// Bytes durably in the partial file; `length` once the bundle verified.
    let received: UInt64

    var isComplete: Bool { received == length }

    init(sourceDeviceID: DeviceID, bundleID: BundleID, vaultID: VaultID, length: UInt64, sha256: [UInt8], received: UInt64) {
        self.sourceDeviceID = sourceDeviceID
        self.bundleID = bundleID
        self.vaultID = vaultID
        self.length = length
        self.sha256 = sha256
        self.received = received
    }

    init(row: Row) throws {
        self.init(sourceDeviceID: try DeviceID(bytes: try row.blob("source_device_id")), 
                  bundleID: try BundleID(bytes: try row.blob("bundle_id")), vaultID: try VaultID(bytes: try row.blob("vault_id")),
                  length: UInt64(clamping: try row.integer("length")), sha256: try row.blob("sha256"),
                  received: UInt64(clamping: try row.integer("received")))
    }

    /// Whether `announcement` describes this very replica (same vault, length and digest).
    func matches(_ announcement: ReplicaAnnouncement) -> Bool {
        vaultID == announcement.vaultID && length == announcement.length && sha256 == announcement.sha256
    }

    var inventoryEntry: ReplicaInventory.Entry {
        ReplicaInventory.Entry(bundleID: bundleID, length: length, received: received, sha256: sha256)
    }
}
