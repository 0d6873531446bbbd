import CryptoVault

/// The actions the exchange records (SECURITY.md §19.9). Details are device ids, project ids,
/// counts and reason codes, never text.
extension AuditAction {
    /// A sync with a paired device ended (details: peer, projects, sent, received, refused).
    public static let syncExchange = AuditAction("sync.exchange")
    /// A peer's sync request refused (details: peer, request, reason).
    public static let syncExchangeRefused = AuditAction("sync.exchange-refused")
    /// This vault's records of a project refused by the peer it pushed them to, as the peer said
    /// (details: peer, project, reason, records: how many), so the device whose changes were
    /// refused (a viewer's, say) learns it as the peer does (`sync.exchange-refused` or
    /// `sync.record-refused` there). Ids, a code and a count: never the records' content.
    public static let syncPushRefused = AuditAction("sync.push-refused")
    /// A project left for one exchange, the others going on (details: peer, project, reason: a
    /// code of `SyncInitiator.skipsTheProject`, such as `recordTooLarge`).
    public static let syncProjectSkipped = AuditAction("sync.project-skipped")
    /// A project made here from a peer's offer (details: peer, access).
    public static let syncProjectAdded = AuditAction("sync.project-added")
    /// A project held here as the owner's own found to be someone else's: an own device offers it
    /// as held from that device (an own device's offer before origins were said named none), so
    /// this vault holds it from that device in that role too (details: peer, origin, access).
    public static let syncProjectOriginLearned = AuditAction("sync.project-origin-learned")
    /// A device whose records a project takes added to its roster (details: device, vouched-by: the
    /// peer whose offer named it, or none when this vault's own pairings and grants gave it).
    public static let syncRosterAdd = AuditAction("sync.roster-add")
    /// A device found to have forked a project's history (two records of one number, SECURITY.md
    /// §19.4), remembered so its later records are refused at once (details: device). Once per
    /// device and project.
    public static let syncForkFound = AuditAction("sync.fork-found")
    /// A project shared with a device for sync, or the share revoked (details: peer, role).
    public static let syncShare = AuditAction("sync.share")
    public static let syncShareRevoke = AuditAction("sync.share-revoke")
    /// The exchange's own tables mended by `vaultctl repair` (SECURITY.md §19.9, "Damaged exchange
    /// state"; details: remade, the tables made again empty; dropped, per table the rows dropped).
    public static let syncExchangeMended = AuditAction("sync.exchange-mended")
    /// Sync with a device paused or resumed here (details: peer).
    public static let syncPause = AuditAction("sync.pause")
    public static let syncResume = AuditAction("sync.resume")
}
