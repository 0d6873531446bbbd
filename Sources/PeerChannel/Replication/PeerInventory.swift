import CryptoVault

extension ChannelRequesting {
    /// Every replica the peer keeps of `vaultID`'s bundles, by bundle id, read a page at a time.
    func replicaInventory(of vaultID: VaultID) throws -> [BundleID: ReplicaInventory.Entry] {
        var entries: [BundleID: ReplicaInventory.Entry] = [:]
        var request: ReplicaInventory.Request? = ReplicaInventory.Request(firstPageOf: vaultID)
        while let current = request {
            let page = try ReplicaInventory.parsePage(try self.request(ReplicationWire.inventoryKind, body: current.serialized()),
                                                      answering: current)
            for entry in page { entries[entry.bundleID] = entry }
            request = page.count == ReplicaInventory.pageSize ? page.last.flatMap { current.next(after: $0.bundleID) } : nil
        }
        return entries
    }
}
