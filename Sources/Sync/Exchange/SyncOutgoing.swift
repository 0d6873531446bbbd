import CryptoVault
import PrivilegedSession
import Writing

/// The body of one sync message that leaves this vault (SECURITY.md §19.9): a request the asking
/// side sends (`SyncTransport.request`) or an answer the answering side returns
/// (`SyncResponder.respond`). A message that carries the vault's content (records, project offers)
/// is made only from what the egress funnel released (`SyncEndpoint.release`); the others carry
/// ids, version vectors, counts and refusal codes, and each has its own initializer. There is no
/// initializer from bytes, so a transport cannot be handed records the funnel did not release
/// (issue 12: every transport that carries bytes out takes what the funnel released).
public struct SyncOutgoing: Sendable {
    public let bytes: [UInt8]

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// What the funnel released, as it released it: the one way content leaves.
    init(released: ReleasedPayload) { self.init(bytes: released.bytes) }

    /// `sync.projects`: the first page (the version byte alone), or the page after a project.
    public init(_ request: SyncProjectsRequest) { self.init(bytes: request.serialized()) }

    /// `sync.pull`: a project id and the version vector this vault holds.
    public init(_ request: SyncPullRequest) { self.init(bytes: request.serialized()) }

    /// The answer to `sync.projects` when no project is offered (from there on): nothing to release.
    static let noOffers = SyncOutgoing(bytes: SyncProjectsPage(more: false, offers: []).serialized())

    /// `sync.offer` of no project: asks whether the device counts this one as its own (its owner's
    /// own devices answer it, taking nothing; any other refuses it, `offerRefused`). Nothing to
    /// release: `vaultctl repair --from` asks it before it rebuilds (reviewer s17, F17-11).
    static let emptyOffer = SyncOutgoing(bytes: SyncOffers.serialize([]))

    /// `sync.demotions`, request or answer: device ids, public keys and times, no content.
    init(_ list: SyncDemotionList) { self.init(bytes: list.serialized()) }

    /// The answer to `sync.offer`: which offered projects were taken.
    init(taken: [(ProjectID, Bool)]) { self.init(bytes: SyncOffers.serializeTaken(taken)) }

    /// The answer to `sync.push`: how many records were stored, and the code of each refused.
    init(_ answer: SyncPushAnswer) { self.init(bytes: answer.serialized()) }

    /// A pull answer with no records (this vault's vector, no more): nothing to release. One with
    /// records goes through `SyncEndpoint.release`.
    init(recordless answer: SyncPullAnswer) throws {
        guard answer.records.isEmpty else {
            throw SyncExchangeError(.egressRefused, "a pull answer with records leaves only as the funnel released it")
        }
        self.init(bytes: answer.serialized())
    }
}
