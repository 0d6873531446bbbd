import CryptoVault
import Writing

/// A project's records refused in the exchanges with one device, one way, while it lasts (attack
/// review s8, F20): a project whose records are refused at every exchange does not sync with that
/// device, though every exchange completes, so `vaultctl sync status` says so (how many, why, since
/// when) instead of "syncs", and `vaultctl sync now` exits 75. Kept by the asking side at the end of
/// each project's step (`sync_refusals`, SECURITY.md §19.9) until a step of the project with that
/// device refuses nothing that way.
public struct SyncProjectRefusal: Sendable, Equatable {
    /// Whose records were refused: the device's by this vault (`here`), or this vault's by the device (`peer`).
    public enum Side: String, Sendable {
        case here, peer
    }

    public let peer: DeviceID
    public let project: ProjectID
    public let side: Side
    /// How many records the last exchange that refused any refused; 0: the project itself (its
    /// offer refused here, so none of its records was asked for).
    public let records: Int
    /// The refusals' codes (each once, sorted), as the refusing side named them.
    public let reasons: [String]
    /// The first exchange of this run of refusals, and the last one (Unix seconds).
    public let since: Int64
    public let lastAt: Int64
}

extension SyncProjectRefusal {
    /// The codes of an offer this vault refuses by a standing choice of its owner's, for a device not
    /// the owner's own (review 17 s8, F20's rest; review 17 s9 on 0f94425, note (b)): the project is
    /// not shared with that device (`notShared`: never, or no longer; a device the owner no longer
    /// trusts as theirs included), a privileged project is never on someone else's device
    /// (`privilegedRefused`), someone else's project is shared by its owner alone (`notOwner`), a
    /// project that device never shared with this vault makes nothing (`offerRefused`). Such an offer
    /// is refused at every exchange for as long as the choice stands, and nothing was meant to sync
    /// there: it is said (`sync now`, `sync status`), never counted as a project that did not sync.
    public static let declinedCodes: Set<String> = Set([SyncExchangeErrorCode.notShared, .privilegedRefused, .notOwner, .offerRefused].map(\.rawValue))

    /// An offer of a project this vault destroyed (`vaultctl compartment destroy`, `projectDestroyed`):
    /// the owner's choice made here, whoever offers it. An own device that still holds the project
    /// offers it at every exchange until it is destroyed there too; before, every `sync now` here
    /// then exited 75 for good (review 17 s13, N-s13-1 follow-up).
    public static let destroyedCode = SyncExchangeErrorCode.projectDestroyed.rawValue

    /// Whether an offer refused here with `code` is declined by the owner's standing choice, from an
    /// own device (`fromOwnDevice`) or not.
    public static func declines(_ code: String, fromOwnDevice: Bool) -> Bool {
        code == destroyedCode || (!fromOwnDevice && declinedCodes.contains(code))
    }

    /// Whether this is only such an offer refused here (no record refused), of a device not among
    /// `own`, or of a project destroyed here, whoever's the device.
    public func declined(byOwnersChoiceAmong own: Set<DeviceID>) -> Bool {
        side == .here && records == 0 && !reasons.isEmpty && reasons.allSatisfy { Self.declines($0, fromOwnDevice: own.contains(peer)) }
    }

    /// Whether this is only the device saying it destroyed the project, which this vault still holds
    /// and offered it (`SyncInitiator.whyNotTaken`; review 17 s14, N-s14-5): the owner's choice, made
    /// there. Said under the project (`sync status`), never counted as not in sync with the device.
    public var shreddedThere: Bool {
        side == .peer && records == 0 && reasons == [Self.destroyedCode]
    }
}

extension SyncRunReport.Project {
    /// Whether the project did not wholly sync in this run: left for it (`skipped`), local-only,
    /// its offer refused, or any of its records refused either way and so not held there. Not an
    /// offer `declined` by a standing choice of the owner's: nothing else of it was asked for.
    public var notSynced: Bool {
        guard !declined, shreddedThere == nil else { return false }
        return skipped != nil || localOnly != nil || access == "none" || !refusedAndNotHeld.isEmpty || !refusedByPeerAndNotHeld.isEmpty
    }

    /// The codes of the peer's records refused here, and of this vault's refused by the peer, but
    /// `replayedRecord`: a record the refusing side holds already (sent again after a run cut
    /// before its answer, say) is no record missing there (the three-device test met it); nor
    /// `recordSetAside`: one it holds set aside, which the side that sent it then sets aside too.
    public var refusedAndNotHeld: [String] { refused.filter { !Self.heldAlready.contains($0) } }
    public var refusedByPeerAndNotHeld: [String] { refusedByPeer.filter { !Self.heldAlready.contains($0) } }
    static let heldAlready: Set<String> = [SyncErrorCode.replayedRecord.rawValue, SyncErrorCode.recordSetAside.rawValue]
}

extension SyncEndpoint {
    /// Keeps what each project's step refused, each way, for `sync status`, in one transaction: a
    /// way that refused records is kept (the first time of its run of refusals as `since`); one
    /// that refused none, once the step ran to its end (and, this vault's way, pushed), is
    /// forgotten. A step left midway (skipped, local-only, its offer refused) forgets nothing: what
    /// it did not reach says nothing. Never fails the run: the run's report says the same.
    /// Refused offers kept per device at most: a device may offer up to 65,536 projects an exchange
    /// (1,024 pages of 64), each refused here if it is none it may offer; keeping a row for every one
    /// would let a colleague's modified client grow this vault by megabytes a minute (review 17 s9,
    /// N-s9-10). Past the bound the run's report and its exit still say each; the audit's are budgeted.
    static let maximumRefusedOffersKept = 32

    func keepRefusals(of projects: [SyncRunReport.Project]) {
        guard !projects.isEmpty else { return }
        try? vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            let now = clock.now()
            for entry in projects {
                let offerRefused = entry.access == "none"
                let ranToItsEnd = entry.skipped == nil && entry.localOnly == nil && !offerRefused
                // This vault's records are known taken only when they were offered (a viewer's are not).
                let sides = [(SyncProjectRefusal.Side.here, entry.refusedAndNotHeld, entry.recordsRefused, ranToItsEnd),
                             (.peer, entry.refusedByPeerAndNotHeld, entry.recordsRefusedByPeer, ranToItsEnd && entry.pushed)]
                for (side, codes, records, forgets) in sides where !codes.isEmpty || forgets {
                    guard !codes.isEmpty else {
                        try store.forgetRefusal(of: entry.project, by: peer.deviceID, side: side)
                        continue
                    }
                    if offerRefused, try !store.hasRefusal(of: entry.project, by: peer.deviceID, side: side),
                       try store.refusedOfferCount(by: peer.deviceID) >= Self.maximumRefusedOffersKept { continue }
                    try store.keepRefusal(of: entry.project, by: peer.deviceID, side: side, records: records, reasons: codes, at: now)
                }
            }
        }
    }
}
