import CryptoVault
import Writing

/// A project's roster stays within what one offer names (`SyncWire.maximumRoster`, SECURITY.md
/// §19.9 "Which keys verify"; attack review s7, N1). A device whose offers may vouch for devices (a
/// colleague that is the project's origin, say) could otherwise grow the roster past what any
/// reader takes, and every own device's `sync.projects` answer naming the project would then be
/// refused whole as malformed: every project would stop syncing between the owner's devices, and
/// `vaultctl repair --from` with them. So this vault keeps no more from offers, and names no more
/// in its own.
extension SyncEndpoint {
    /// Keeps the devices the peer's offer vouches for as the roster has room (`addRoster`), each
    /// added recorded (`sync.roster-add`). Returns the devices not kept, for `recordRosterFull`.
    func keepRoster(_ roster: [SyncRosterEntry], of project: WritingProject, in tx: VaultTransaction,
                    _ store: SyncExchangeStore) throws -> [DeviceID] {
        let (added, unkept) = try store.addRoster(roster, of: project.id)
        try recordSigners(added, of: project, vouchedBy: peer.deviceID, in: tx)
        return unkept
    }

    /// Records that the peer's offer named devices the project's roster had no room for
    /// (`sync.exchange-refused`, reason `rosterFull`, details: devices, bound), charged to the peer's
    /// refusal budget: once per project and peer (`sync_roster_refusals`), since the peer offers
    /// the same roster at every exchange and the audit log only grows. An entry the budget did not
    /// let through is not remembered, so a later exchange records it.
    func recordRosterFull(_ unkept: [DeviceID], of project: ProjectID, request: String) {
        guard !unkept.isEmpty else { return }
        let device = peer.deviceID
        let recorded = (try? vault.transaction { tx in
            try SyncExchangeStore(database: tx.database).rosterRefusalRecorded(by: device, of: project)
        }) ?? false
        guard !recorded, recordRefusal(request, reason: SyncExchangeErrorCode.rosterFull.rawValue, project: project,
                                       details: [.init("devices", String(unkept.count)), .init("bound", String(SyncWire.maximumRoster))])
        else { return }
        let now = clock.now()
        try? vault.transaction { tx in try SyncExchangeStore(database: tx.database).rememberRosterRefusal(by: device, of: project, at: now) }
    }

    /// The entries an offer of a project names, at most `SyncWire.maximumRoster`: this device and
    /// the owner's own devices first (every record of the owner's must verify), then the project's
    /// origin and the devices paired here that write it (this vault's own grants: a receiving own
    /// device refuses an offer whose roster lacks the origin it holds the project from), then those
    /// known from rosters only, by id, so the offer is the same at every exchange.
    func offered(_ entries: [DeviceID: SyncRosterEntry], origin: DeviceID?) -> [SyncRosterEntry] {
        let granted = Set(pairings.map(\.peer.deviceID)).union(origin.map { [$0] } ?? [])
        func rank(_ device: DeviceID) -> Int {
            device == me.deviceID ? 0 : trusted.contains(device) ? 1 : granted.contains(device) ? 2 : 3
        }
        let ordered = entries.values.sorted { a, b in
            rank(a.device) != rank(b.device) ? rank(a.device) < rank(b.device) : a.device.bytes.lexicographicallyPrecedes(b.device.bytes)
        }
        return Array(ordered.prefix(SyncWire.maximumRoster))
    }
}
