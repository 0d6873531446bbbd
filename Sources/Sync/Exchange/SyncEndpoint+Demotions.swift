import CryptoVault

/// `sync.demotions` on either side of an exchange (SECURITY.md §19.9, "Demotions among own
/// devices"; review 17 s8, F4): each side passes its list to the other only when it trusts the other
/// `mine`, and takes the other's only then.
extension SyncEndpoint {
    /// The devices this vault holds as demoted, as `SyncEndpoint.init` reads them: none when the
    /// table cannot be read (the exchange's health check refuses to run then, before any request).
    static func demotedDevices(in vault: UnlockedVault) -> Set<DeviceID> {
        let held = try? vault.vault.read { database in try SyncExchangeStore(database: database).demotions() }
        return Set((held ?? []).map(\.device))
    }

    /// The list this vault passes to the peer: its newest demotions to an own device, none to any other.
    func demotionsToPass() throws -> SyncDemotionList {
        guard peerIsMine else { return SyncDemotionList([]) }
        return SyncDemotionList(try vault.vault.read { database in try SyncExchangeStore(database: database).newestDemotions() })
    }

    /// Takes the peer's list when the peer is trusted `mine` here (`OwnDeviceDemotions.take`); from
    /// any other device nothing. Entries left out for the bound are recorded as one refusal
    /// (`rosterFull`, details devices and bound), charged to the peer's budget.
    func takeDemotions(_ list: SyncDemotionList, request: String) throws {
        guard peerIsMine, !list.demotions.isEmpty else { return }
        let full = try vault.transaction { tx in try OwnDeviceDemotions.take(list, from: peer.deviceID, me: author.device, in: tx) }
        if full > 0 {
            recordRefusal(request, reason: SyncExchangeErrorCode.rosterFull.rawValue,
                          details: [.init("devices", String(full)), .init("bound", String(SyncWire.maximumDemotions))])
        }
    }
}
