import CryptoVault
import PrivilegedSession
import Writing

/// The answering side of the exchange (SECURITY.md §19.9), what `vaultctl serve --address` runs for
/// each sync request of a paired device. Every refusal goes back with its code and is recorded here
/// (`sync.exchange-refused`); records a peer sends are verified by `VaultSync.receive`, which records
/// each it refuses.
public struct SyncResponder: Sendable {
    public let vault: UnlockedVault
    public let coordinator: SyncCoordinator?
    /// How many refusals of each device are recorded in a time (the same budget for the responder's life).
    public let refusals: SyncRefusalBudget
    /// When the exchange's tables are checked: once per exchange, not per request.
    public let health: SyncExchangeHealthWatch
    /// What a device other than the owner's own may add to a project here in a day.
    public let quota: SyncDeviceQuota
    /// How many answers carrying records or offers each device other than the owner's own gets in a time.
    public let requests: SyncRequestBudget

    public init(vault: UnlockedVault, coordinator: SyncCoordinator? = nil, refusals: SyncRefusalBudget = SyncRefusalBudget(),
                health: SyncExchangeHealthWatch = SyncExchangeHealthWatch(), quota: SyncDeviceQuota = SyncDeviceQuota(),
                requests: SyncRequestBudget = SyncRequestBudget()) {
        self.vault = vault
        self.coordinator = coordinator
        self.refusals = refusals
        self.health = health
        self.quota = quota
        self.requests = requests
    }

    /// The answer to one request of `peer`, records and offers as the egress funnel released them.
    /// Throws a `SyncExchangeError` (recorded, within the peer's refusal budget) to refuse it; a
    /// peer past its budget is refused unread.
    public func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> SyncOutgoing {
        var endpoint = try SyncEndpoint(vault: vault, peer: peer)
        endpoint.refusals = refusals
        endpoint.quota = quota
        let (over, unrecorded) = refusals.open(peer.deviceID)
        if unrecorded > 0 {
            endpoint.writeRefusal(kind, reason: SyncExchangeErrorCode.tooManyRefusals.rawValue, details: [.init("unrecorded", String(unrecorded))])
        }
        // Damage of the tables as a whole, or of this device's rows, refuses the request; a
        // damaged project's rows refuse the requests of that project alone (`answer`).
        let damage: SyncExchangeDamage
        do {
            damage = try health.check(before: kind, in: vault)
            if let why = damage.reason(for: peer.deviceID) { throw SyncError(.damagedSyncState, why) }
        } catch let error as SyncError {
            endpoint.recordRefusal(kind, reason: error.code.rawValue)
            throw error
        }
        if over {
            _ = refusals.charge(peer.deviceID, 1)
            throw SyncExchangeError(.tooManyRefusals, "device \(peer.fingerprint) had over \(refusals.bound) requests refused within \(Int(refusals.seconds)) s: its requests are refused until that time has passed")
        }
        do {
            return try answer(kind, body, endpoint, damage)
        } catch let refusal as UnrecordedRefusal {
            throw refusal.error
        } catch let refusal as WholeRequestRefusal {
            record(refusal.error, of: kind, details: refusal.details, endpoint)
            throw refusal.error
        } catch let error as SyncExchangeError {
            record(error, of: kind, details: [], endpoint)
            throw error
        } catch let error as SyncError {
            // The project's records here failed the request (its commit past a bound, its stored
            // records damaged): recorded, and the asker leaves that project (`SyncPeerFailure`).
            endpoint.recordRefusal(kind, reason: error.code.rawValue)
            throw error
        } catch {
            // Any other failure answering (the vault's, the store's): recorded too, by a code and
            // never its message, so the answering side's log says a request failed (review 17 s13, LOW 3).
            endpoint.recordRefusal(kind, reason: Self.serviceFailed)
            throw error
        }
    }

    /// The reason recorded for a request that failed here for another cause than a refusal.
    static let serviceFailed = "serviceFailed"

    /// Records a refusal of the peer's request, as its budget allows (and the summary once past it).
    private func record(_ error: SyncExchangeError, of kind: String, details: [VaultEvent.Detail], _ endpoint: SyncEndpoint) {
        endpoint.recordRefusal(kind, reason: error.code.rawValue, details: details)
    }

    private func answer(_ kind: String, _ body: [UInt8], _ endpoint: SyncEndpoint, _ damage: SyncExchangeDamage) throws -> SyncOutgoing {
        if try vault.transaction({ tx in try SyncExchangeStore(database: tx.database).peer(endpoint.peer.deviceID)?.paused }) == true {
            // Which side paused it, and where it is resumed: the asker's owner reads these words (F17-8).
            let name = try vault.deviceKeys().profile.name
            throw SyncExchangeError(.paused, "sync with this device is paused on \(name): 'vaultctl sync resume' on \(name) resumes it")
        }
        // A message of another version is refused whole, its version in the entry (attack review s7, A8).
        if let version = body.first, version != SyncWire.version {
            throw WholeRequestRefusal(error: SyncVersionRefusal.refusal(of: version), details: [.init("version", String(version))])
        }
        switch kind {
        case SyncWire.projectsKind: return try projects(body, endpoint, damage)
        case SyncWire.offerKind: return try offered(body, endpoint, damage)
        case SyncWire.pullKind:
            let request = try SyncPullRequest(parsing: body)
            try Self.refuseDamaged(request.project, damage)
            return try pull(request, endpoint)
        case SyncWire.pushKind:
            let request = try SyncPushRequest(parsing: body)
            try Self.refuseDamaged(request.project, damage)
            return try push(request, endpoint)
        case SyncWire.demotionsKind: return try demotions(try SyncDemotionList(parsing: body), endpoint)
        default: throw SyncExchangeError(.malformedMessage, "the sync service does not answer '\(kind)'")
        }
    }

    /// A request of a project whose exchange rows here are damaged is refused with the reason (the
    /// asker leaves that project: `SyncPeerFailure`); the other projects' go on.
    private static func refuseDamaged(_ project: ProjectID, _ damage: SyncExchangeDamage) throws {
        if let why = damage.reason(for: project) { throw SyncError(.damagedSyncState, why) }
    }

    /// A page of the projects the peer may sync (those after the project the request names), their
    /// names released by the funnel like their records: one egress decision per page. A project
    /// whose exchange rows here are damaged is not offered (its rows are not read as if whole).
    private func projects(_ body: [UInt8], _ endpoint: SyncEndpoint, _ damage: SyncExchangeDamage) throws -> SyncOutgoing {
        let request = try SyncProjectsRequest(parsing: body)
        try reserveAnswer(SyncWire.projectsKind, endpoint)
        let (offers, more) = try endpoint.offers(after: request.after, limit: SyncWire.maximumOffers, refusing: { project, origin in
            self.record(SyncExchangeError(.notOwner, "project \(project) is device \(origin.hex)'s: only its owner shares it"), of: SyncWire.projectsKind,
                        details: [.init("project", project.hex), .init("origin", origin.hex)], endpoint)
        }, of: { damage.projects[$0.id] == nil }, held: Set(request.held))
        guard !offers.isEmpty else {
            giveBackAnswer(endpoint)
            return .noOffers
        }
        let page = SyncProjectsPage(more: more, offers: offers).serialized()
        try admitAnswer(SyncWire.projectsKind, page, endpoint)
        return try endpoint.release(page, of: try offers.compactMap { try endpoint.project($0.project) })
    }

    /// The asker's demotions, taken from an own device only, answered with this vault's (to an own
    /// device; to any other an empty list, so it learns nothing of whom the owner demoted).
    private func demotions(_ list: SyncDemotionList, _ endpoint: SyncEndpoint) throws -> SyncOutgoing {
        try endpoint.takeDemotions(list, request: SyncWire.demotionsKind)
        return SyncOutgoing(try endpoint.demotionsToPass())
    }

    /// Projects the owner's own device holds and this vault does not: made here.
    private func offered(_ body: [UInt8], _ endpoint: SyncEndpoint, _ damage: SyncExchangeDamage) throws -> SyncOutgoing {
        let offers = try SyncOffers.parse(body)
        guard endpoint.peerIsMine else {
            throw SyncExchangeError(.offerRefused, "only the owner's own devices add projects to this vault")
        }
        var taken: [(ProjectID, Bool)] = []
        for offer in offers {
            // A project whose exchange rows here are damaged takes nothing until mended.
            guard damage.projects[offer.project] == nil else {
                taken.append((offer.project, false))
                continue
            }
            // A refused offer (recorded by the endpoint) is answered as not taken.
            let made = try endpoint.adopt(offer, request: SyncWire.offerKind)
            taken.append((offer.project, (try? made.get()) != nil))
        }
        return SyncOutgoing(taken: taken)
    }

    /// A pull refused recorded with its project (and, for a device whose share of it was revoked
    /// here, `share` `revoked`): the owner's log says which project a revoked device still asked for
    /// (reviewer s17, F17-7).
    private func pull(_ request: SyncPullRequest, _ endpoint: SyncEndpoint) throws -> SyncOutgoing {
        let project: WritingProject
        do {
            project = try allowed(request.project, endpoint, writing: false)
        } catch let error as SyncExchangeError {
            throw WholeRequestRefusal(error: error, details: try endpoint.refusalDetails(of: request.project))
        }
        try reserveAnswer(SyncWire.pullKind, endpoint)
        // Released in the session its records were read in (F17-9).
        return try damageRefused(project.id) {
            try endpoint.missing(project, from: request.held, tips: request.tips) { answer, session in
                if answer.records.isEmpty {
                    giveBackAnswer(endpoint)
                    return try SyncOutgoing(recordless: answer)
                }
                let message = answer.serialized()
                try admitAnswer(SyncWire.pullKind, message, endpoint)
                return try endpoint.release(message, of: [project], in: session)
            }
        }
    }

    /// A push is refused whole, once, before any of its records is read, when the project is not
    /// held here or the peer may not write it: one entry naming the reason and how many records
    /// came (never one per record: a paired device must not grow the audit log by thousands of
    /// entries per request). Records the peer may write are verified one by one, each refusal
    /// recorded, and charged to the peer's refusal budget.
    private func push(_ request: SyncPushRequest, _ endpoint: SyncEndpoint) throws -> SyncOutgoing {
        let count = try endpoint.refusalDetails(of: request.project) + [.init("records", String(request.records.count))]
        let project: WritingProject
        do {
            project = try allowed(request.project, endpoint, writing: true)
        } catch let error as SyncExchangeError {
            throw WholeRequestRefusal(error: error, details: count)
        }
        let receipt: SyncReceipt
        do {
            // Each refusal recorded as the peer's budget allows (`SyncEndpoint.receive`), the rest summarised once.
            receipt = try damageRefused(project.id) { try endpoint.receive(request.records, for: project, coordinator: coordinator, answering: true) }
        } catch let error as SyncError where error.code == .writingRefused {
            // Recorded by the endpoint; the peer learns each record was refused, and why.
            return SyncOutgoing(SyncPushAnswer(stored: 0, refused: request.records.map { _ in error.code.rawValue }))
        } catch let error as SyncExchangeError where error.code == .quotaExceeded {
            // Past the device's day's bound (review 17 s8, F13): refused whole, nothing stored, kept for `sync status`.
            endpoint.keepQuotaRefusal(of: project.id, records: request.records.count)
            throw WholeRequestRefusal(error: error, details: count)
        }
        if receipt.stored > 0 { endpoint.forgetQuotaRefusal(of: project.id) }
        try vault.transaction { tx in
            try SyncExchangeStore(database: tx.database).recordAttempt(endpoint.peer.deviceID, at: endpoint.clock.now(), error: nil,
                                                                        sent: 0, received: receipt.stored)
        }
        return SyncOutgoing(SyncPushAnswer(stored: receipt.stored, refused: receipt.refused.map(\.error.code.rawValue)))
    }

    /// Reserves an answer to the peer in its budget before anything is opened for it (review 17 s8,
    /// F7): a device past the bound is refused unread. The owner's own devices are not bounded:
    /// they sync everything, and are the owner's.
    private func reserveAnswer(_ kind: String, _ endpoint: SyncEndpoint) throws {
        guard !endpoint.peerIsMine else { return }
        try refuseIfOver(requests.reserve(endpoint.peer.deviceID), kind, endpoint)
    }

    /// The reserved answer carries nothing (no entry made for it): not counted.
    private func giveBackAnswer(_ endpoint: SyncEndpoint) {
        guard !endpoint.peerIsMine else { return }
        requests.giveBack(endpoint.peer.deviceID)
    }

    /// Counts the answer `message` toward the peer's new answers, unless it was given this very
    /// content in the window already (the same page of offers at every exchange is not new).
    private func admitAnswer(_ kind: String, _ message: [UInt8], _ endpoint: SyncEndpoint) throws {
        guard !endpoint.peerIsMine else { return }
        try refuseIfOver(requests.admit(endpoint.peer.deviceID, digest: SHA256.hash(message)), kind, endpoint)
    }

    /// Past a bound: refused (`tooManyRequests`), the window's first refusal recorded as one summary
    /// and the others not at all (the refusal budget is not charged: it would add 64 entries more).
    private func refuseIfOver(_ admission: SyncRequestBudget.Admission, _ kind: String, _ endpoint: SyncEndpoint) throws {
        guard case .refuse(let summarise, let bound, let counted) = admission else { return }
        if summarise {
            endpoint.writeRefusal(kind, reason: SyncExchangeErrorCode.tooManyRequests.rawValue,
                                  details: [.init("bound", String(bound)), .init("counted", counted),
                                            .init("seconds", String(Int(requests.seconds)))])
        }
        throw UnrecordedRefusal(error: SyncExchangeError(.tooManyRequests,
            "device \(endpoint.peer.fingerprint) had \(bound) \(counted) with records or offers within \(Int(requests.seconds)) s: "
            + "they are refused until that time has passed"))
    }

    /// One project's step that fails on this vault's own data of it (a sealed block, title or name
    /// that does not open) is refused as `damagedProject`, naming the project and this device (or,
    /// a refusal of the writing store, as `writingRefused`: not damage): the asker leaves that
    /// project and goes on with the others (attack review s8, F8).
    private func damageRefused<Answer>(_ project: ProjectID, _ step: () throws -> Answer) throws -> Answer {
        do { return try step() } catch where SyncProjectDamage.isTheProjects(error) {
            let name = (try? vault.deviceKeys().profile.name) ?? "the answering device"
            throw SyncProjectDamage.error(project, error, on: "on \(name)")
        }
    }

    /// The project, if the peer may read it (and write it, for `writing`); else the reason, thrown.
    private func allowed(_ id: ProjectID, _ endpoint: SyncEndpoint, writing: Bool) throws -> WritingProject {
        if let damaged = try endpoint.damagedRow(of: id) {
            throw SyncProjectDamage.damagedRow(damaged, on: "on \((try? vault.deviceKeys().profile.name) ?? "the answering device")")
        }
        guard let project = try endpoint.project(id) else {
            // Shredded here: said to the owner's own device, which still holds it and asks why its
            // offer was not taken (N-s14-5); to any other device, as any project it may not have.
            if endpoint.peerIsMine, try vault.transaction({ tx in try WritingStore(tx).isShredded(id) }) {
                let name = (try? vault.deviceKeys().profile.name) ?? "the answering device"
                throw SyncExchangeError(.projectDestroyed, "project \(id) was destroyed on \(name) (its compartment shredded there): it syncs no more with it")
            }
            throw SyncExchangeError(.notShared, "this vault holds no project \(id) for device \(endpoint.peer.fingerprint)")
        }
        let access = try vault.transaction { tx in try endpoint.access(to: project, in: SyncExchangeStore(database: tx.database)) }.get()
        if writing && !access.writes {
            throw SyncExchangeError(.viewerCannotWrite, "device \(endpoint.peer.fingerprint) is a viewer of project \(id): its changes are refused")
        }
        return project
    }
}

/// A refusal its thrower recorded already, as it chose (past the answer budget: once a window).
private struct UnrecordedRefusal: Error {
    let error: SyncExchangeError
}

/// A refusal of a whole request with details beyond its reason (a push's project and record count).
private struct WholeRequestRefusal: Error {
    let error: SyncExchangeError
    let details: [VaultEvent.Detail]
}
