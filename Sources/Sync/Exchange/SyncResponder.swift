import CryptoVault
import Writing

/// The answering side of the exchange (SECURITY.md §19.9), what `vaultctl serve --address` runs for
/// each sync request of a paired device. Every refusal goes back with its code and is recorded here
/// (`sync.exchange-refused`); records a peer sends are verified by `VaultSync.receive`, which records
/// each it refuses.
public struct SyncResponder: Sendable {
    public let vault: UnlockedVault
    public let coordinator: SyncCoordinator?

    public init(vault: UnlockedVault, coordinator: SyncCoordinator? = nil) {
        self.vault = vault
        self.coordinator = coordinator
    }

    /// The answer to one request of `peer`, records and offers as the egress funnel released them.
    /// Throws a `SyncExchangeError` (recorded) to refuse it.
    public func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> SyncOutgoing {
        let endpoint = try SyncEndpoint(vault: vault, peer: peer)
        do {
            return try answer(kind, body, endpoint)
        } catch let error as SyncExchangeError {
            endpoint.recordRefusal(kind, reason: error.code.rawValue)
            throw error
        }
    }

    private func answer(_ kind: String, _ body: [UInt8], _ endpoint: SyncEndpoint) throws -> SyncOutgoing {
        if try vault.transaction({ tx in try SyncExchangeStore(database: tx.database).peer(endpoint.peer.deviceID)?.paused }) == true {
            throw SyncExchangeError(.paused, "sync with this device is paused on \(try vault.deviceKeys().profile.name)")
        }
        switch kind {
        case SyncWire.projectsKind: return try projects(body, endpoint)
        case SyncWire.offerKind: return try offered(body, endpoint)
        case SyncWire.pullKind: return try pull(try SyncPullRequest(parsing: body), endpoint)
        case SyncWire.pushKind: return try push(try SyncPushRequest(parsing: body), endpoint)
        default: throw SyncExchangeError(.malformedMessage, "the sync service does not answer '\(kind)'")
        }
    }

    /// The projects the peer may sync, their names released by the funnel like their records.
    private func projects(_ body: [UInt8], _ endpoint: SyncEndpoint) throws -> SyncOutgoing {
        guard body == [SyncWire.version] else { throw SyncWireReader.malformed("a projects request is the version byte alone") }
        let offers = try endpoint.offers()
        guard !offers.isEmpty else { return .noOffers }
        return try endpoint.release(SyncOffers.serialize(offers), of: try offers.compactMap { try endpoint.project($0.project) })
    }

    /// Projects the owner's own device holds and this vault does not: made here.
    private func offered(_ body: [UInt8], _ endpoint: SyncEndpoint) throws -> SyncOutgoing {
        let offers = try SyncOffers.parse(body)
        guard endpoint.peerIsMine else {
            throw SyncExchangeError(.offerRefused, "only the owner's own devices add projects to this vault")
        }
        return SyncOutgoing(taken: try offers.map { ($0.project, try endpoint.adopt($0, request: SyncWire.offerKind) != nil) })
    }

    private func pull(_ request: SyncPullRequest, _ endpoint: SyncEndpoint) throws -> SyncOutgoing {
        let project = try allowed(request.project, endpoint, writing: false)
        let answer = try endpoint.missing(project, from: request.held)
        if answer.records.isEmpty { return try SyncOutgoing(recordless: answer) }
        return try endpoint.release(answer.serialized(), of: [project])
    }

    private func push(_ request: SyncPushRequest, _ endpoint: SyncEndpoint) throws -> SyncOutgoing {
        guard let held = try endpoint.project(request.project) else {
            let receipt = try endpoint.refuseUnknown(request.records, for: request.project)
            return SyncOutgoing(SyncPushAnswer(stored: 0, refused: receipt.refused.map(\.error.code.rawValue)))
        }
        let project = try allowed(held.id, endpoint, writing: true)
        let receipt: SyncReceipt
        do {
            receipt = try endpoint.receive(request.records, for: project, coordinator: coordinator)
        } catch let error as SyncError where error.code == .writingRefused {
            // Recorded by the endpoint; the peer learns each record was refused, and why.
            return SyncOutgoing(SyncPushAnswer(stored: 0, refused: request.records.map { _ in error.code.rawValue }))
        }
        try vault.transaction { tx in
            try SyncExchangeStore(database: tx.database).recordAttempt(endpoint.peer.deviceID, at: endpoint.clock.now(), error: nil,
                                                                        sent: 0, received: receipt.stored)
        }
        return SyncOutgoing(SyncPushAnswer(stored: receipt.stored, refused: receipt.refused.map(\.error.code.rawValue)))
    }

    /// The project, if the peer may read it (and write it, for `writing`); else the reason, thrown.
    private func allowed(_ id: ProjectID, _ endpoint: SyncEndpoint, writing: Bool) throws -> WritingProject {
        guard let project = try endpoint.project(id) else {
            throw SyncExchangeError(.notShared, "this vault holds no project \(id) for device \(endpoint.peer.fingerprint)")
        }
        let access = try vault.transaction { tx in try endpoint.access(to: project, in: SyncExchangeStore(database: tx.database)) }.get()
        if writing && !access.writes {
            throw SyncExchangeError(.viewerCannotWrite, "device \(endpoint.peer.fingerprint) is a viewer of project \(id): its changes are refused")
        }
        return project
    }
}
