import CryptoVault
import Writing

/// How much one device other than the owner's own may add to this vault in a day, over all the
/// projects it writes here (SECURITY.md §19.9, "Records are bounded per device"; review 17 s8, F13).
/// Every record taken stays for good (§19.7) and goes on to every own device, so a colleague's
/// modified client pushing valid records in a loop would fill this vault's disk, and every own
/// device's. Counted per device that sends the records itself (its push here, or this vault's pull
/// from it), over all projects (a colleague may make as many projects here as it shares: a bound per
/// project would bound nothing), per day of the wall clock (UTC): records stored, and their bytes
/// with `recordOverhead` each (what a record costs besides its bytes: its `sync.record-receive` entry,
/// its row and sealed parts, on every own device). A batch that would pass either bound is refused
/// whole before anything of it is stored (`quotaExceeded`) and kept for `sync status`.
///
/// Per day, not in all: an honest colleague who writes for years is slowed at worst, never cut off
/// for good (the next day its records are taken again), while a flood fills at most the day's bound
/// a day, in sight in `sync status`, until the owner pauses the device. Records an own device relays
/// are never counted: the own devices take from each other what any of them took, so a bound one
/// applied and another did not cannot split them.
public struct SyncDeviceQuota: Sendable {
    /// A person writing all day makes a few records a minute (about 5,000 a day, over all the
    /// projects it shares here); a first sync of a very large project from its owner (months of
    /// autosaved records) is the one honest case that may wait for a second day: a lower bound would
    /// make it wait weeks (review 17 s11 on d8d48ef).
    public static let defaultRecords = 100_000
    public static let defaultBytes = 256 << 20
    /// What each record is charged in bytes besides its own (review 17 s10: 100,000 records of a few
    /// bytes each were as many audit entries, rows and sealed parts, but counted as a few MiB).
    public static let recordOverhead = 1_024

    /// No day's bound is ever past these (a bound given past them is cut to them): so a row of
    /// `sync_device_quotas` counting more is one no writer makes, damage (`SyncExchangeHealth`), and
    /// a day's counts summed over a device's rows stay far from the end of a 64-bit integer.
    public static let greatestRecords = 1 << 32
    public static let greatestBytes = 1 << 48

    public let records: Int
    public let bytes: Int
    let clock: VaultClock

    public init(records: Int = defaultRecords, bytes: Int = defaultBytes, clock: VaultClock = .system) {
        self.records = min(records, Self.greatestRecords)
        self.bytes = min(bytes, Self.greatestBytes)
        self.clock = clock
    }

    /// The day the bounds count over: days since the Unix epoch on the wall clock (UTC).
    var today: Int64 { clock.now() / 86_400 }

    /// Whether `count` records of `size` bytes more stay within both bounds after `use`.
    func admits(_ use: SyncQuotaUse, adding count: Int, bytes size: Int) -> Bool {
        use.records + count <= records && use.bytes + size <= bytes
    }

    /// What `records` are charged in bytes: their own, and `recordOverhead` each.
    static func charged(_ records: [[UInt8]]) -> Int {
        records.reduce(0) { $0 + $1.count + recordOverhead }
    }
}

/// What one device added here (to one project, or to all of them) on one day (`sync_device_quotas`).
struct SyncQuotaUse: Equatable {
    var records = 0
    var bytes = 0
}

extension SyncEndpoint {
    /// Refuses `records` of the peer for `project` (`quotaExceeded`) when they would pass its day's
    /// bounds over all projects, before any is stored. The owner's own devices are never bounded.
    func refuseOverQuota(_ records: [[UInt8]], of project: WritingProject, in store: SyncExchangeStore) throws {
        guard !peerIsMine, !records.isEmpty else { return }
        let use = try store.quotaUse(of: peer.deviceID, on: quota.today)
        let size = SyncDeviceQuota.charged(records)
        guard !quota.admits(use, adding: records.count, bytes: size) else { return }
        throw SyncExchangeError(.quotaExceeded, """
            device \(peer.fingerprint) added \(use.records) record(s) (\(use.bytes) bytes counted) to this vault's projects today: \(records.count) \
            more to project \(project.id) (\(size) bytes counted, \(SyncDeviceQuota.recordOverhead) a record besides its own) would pass its \
            day's bound of \(quota.records) records, \(quota.bytes) bytes; none of them was stored
            """)
    }

    /// Counts what the peer's records that were stored (those taken and not refused) added today.
    func chargeQuota(_ taken: [[UInt8]], refused: [SyncRefusal], of project: WritingProject, in store: SyncExchangeStore) throws {
        guard !peerIsMine, !taken.isEmpty else { return }
        let refusedHashes = Set(refused.compactMap(\.record))
        let stored = taken.filter { !refusedHashes.contains(SHA256.hash($0)) }
        guard !stored.isEmpty else { return }
        try store.chargeQuota(of: peer.deviceID, in: project.id, on: quota.today,
                              SyncQuotaUse(records: stored.count, bytes: SyncDeviceQuota.charged(stored)))
    }

    /// Keeps a push of the peer refused past its bound for `sync status` (`sync_refusals`, side
    /// `here`), until a later push of the project is taken (`forgetQuotaRefusal`).
    func keepQuotaRefusal(of project: ProjectID, records: Int) {
        try? vault.transaction { tx in
            try SyncExchangeStore(database: tx.database).keepRefusal(of: project, by: peer.deviceID, side: .here, records: records,
                                                                      reasons: [SyncExchangeErrorCode.quotaExceeded.rawValue], at: clock.now())
        }
    }

    /// A push of the peer was taken: a refusal kept for its bound alone is forgotten.
    func forgetQuotaRefusal(of project: ProjectID) {
        try? vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            let kept = try store.refusals(of: project).contains {
                $0.peer == peer.deviceID && $0.side == .here && $0.reasons == [SyncExchangeErrorCode.quotaExceeded.rawValue]
            }
            if kept { try store.forgetRefusal(of: project, by: peer.deviceID, side: .here) }
        }
    }
}
