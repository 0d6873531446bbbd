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

    /// The projects of an own device's offers (held here: `held`) whose roster lacks a device this
    /// vault's own offer of them would name (SECURITY.md §19.9, "The asker's steps" (2); reviewer 20,
    /// F20-2). That device, asked, learns a roster only from the answerer's offer to it, so a
    /// colleague this desk shared a project with stays unknown on the laptop until the laptop asks:
    /// every record of the colleague's this desk pushes, and every later record of the owner's built
    /// on one, would be refused there (`unknownDevice`, `missingParents`). Compared by device id (it
    /// derives from both keys); the peer and this device are named by the channel, not the roster.
    func rostersLacked(by offers: [SyncProjectOffer], held: [WritingProject]) throws -> Set<ProjectID> {
        guard peerIsMine else { return [] }
        let byID = Dictionary(held.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return try vault.transaction { tx -> Set<ProjectID> in
            let store = SyncExchangeStore(database: tx.database)
            var lacked = Set<ProjectID>()
            for offer in offers {
                guard let project = byID[offer.project] else { continue }
                let named = Set(offer.roster.map(\.device)).union([peer.deviceID, me.deviceID])
                let ours = try roster(of: project, by: me, signers: try devices(for: project, in: tx), in: store)
                if ours.contains(where: { !named.contains($0.device) }) { lacked.insert(project.id) }
            }
            return lacked
        }
    }
}
