import CryptoVault

/// `sync.demotions` on either side of an exchange (SECURITY.md §19.9, "Demotions among own
/// devices"; review 17 s8, F4): each side passes its list to the other only when it trusts the other
/// `mine`, and takes the other's when the other is, or was, the owner's here (each entry then stands
/// on its own signature).
extension SyncEndpoint {
    /// The demotions this vault holds, as `SyncEndpoint.init` reads them, with whether the device was
    /// `mine` here when kept: none when the table cannot be read (the exchange's health check
    /// refuses to run then, before any request).
    static func heldDemotions(in vault: UnlockedVault) -> [DeviceID: Bool] {
        let held = try? vault.vault.read { database in try SyncExchangeStore(database: database).demotedDevices() }
        return held ?? [:]
    }

    /// The list this vault passes to the peer: its newest demotions to an own device, none to any
    /// other, and none from a vault whose exchange tables stop before `sync_demotions`.
    func demotionsToPass() throws -> SyncDemotionList {
        guard peerIsMine, try keepsDemotions() else { return SyncDemotionList([]) }
        return SyncDemotionList(try vault.vault.read { database in try SyncExchangeStore(database: database).newestDemotions() })
    }

    /// Whether this vault holds `sync_demotions` (every migration of the exchange applied).
    func keepsDemotions() throws -> Bool {
        try vault.vault.read { database in try OwnDeviceDemotions.kept(in: database) }
    }

    /// Takes the peer's list when the peer is, or was, trusted `mine` here (`OwnDeviceDemotions.take`:
    /// a device another own device demoted may be the honest one, and its word must still reach this
    /// vault); from any other device nothing. Each refused entry is recorded (`demotionRefused`,
    /// details device, by, why), entries left out for the bound as one (`rosterFull`, details
    /// devices and bound), each charged to the peer's budget.
    func takeDemotions(_ list: SyncDemotionList, request: String) throws {
        guard peerWasMine, !list.demotions.isEmpty, try keepsDemotions() else { return }
        let now = clock.now()
        let taken = try vault.transaction { tx in try OwnDeviceDemotions.take(list, from: peer.deviceID, me: me, now: now, in: tx) }
        for (entry, why) in taken.refused {
            recordRefusal(request, reason: SyncExchangeErrorCode.demotionRefused.rawValue,
                          details: [.init("device", entry.device.hex), .init("by", entry.demotedBy.hex), .init("why", why.rawValue)])
        }
        if taken.full > 0 {
            recordRefusal(request, reason: SyncExchangeErrorCode.rosterFull.rawValue,
                          details: [.init("devices", String(taken.full)), .init("bound", String(SyncWire.maximumDemotions))])
        }
    }
}
