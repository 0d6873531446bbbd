import CryptoVault
import Writing

/// `sync.projects` asks for one page of the projects the answerer offers (SECURITY.md §19.9): the
/// first page (the version byte alone), or the page after the last project of the page before.
/// A vault may hold more projects than one message, or one egress decision, can name (review 17
/// s8, F15: at 125 projects the answer's egress entry could not be written, and no list of more
/// than 1,024 could be sent at all), so the list is paged.
public struct SyncProjectsRequest: Sendable, Equatable {
    /// The last project of the page before; nil for the first page.
    public let after: ProjectID?

    public init(after: ProjectID?) { self.after = after }

    public func serialized() -> [UInt8] { [SyncWire.version] + (after?.bytes ?? []) }

    public init(parsing bytes: [UInt8]) throws(SyncExchangeError) {
        var reader = SyncWireReader(bytes)
        try reader.version()
        after = bytes.count == 1 ? nil : try reader.identifier(ProjectID.self)
        try reader.end()
    }
}

/// The answer to `sync.projects`: up to `SyncWire.maximumOffers` offers, ascending, and whether
/// more follow (then at least one offer, so each page moves the asker on).
public struct SyncProjectsPage: Sendable, Equatable {
    public let more: Bool
    public let offers: [SyncProjectOffer]

    public init(more: Bool, offers: [SyncProjectOffer]) {
        self.more = more
        self.offers = offers.sorted { $0.project.bytes.lexicographicallyPrecedes($1.project.bytes) }
    }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = [SyncWire.version, more ? 1 : 0]
        SyncOffers.encode(offers, to: &out)
        return out
    }

    public init(parsing bytes: [UInt8]) throws(SyncExchangeError) {
        var reader = SyncWireReader(bytes)
        try reader.version()
        more = try reader.integer(1, in: 0...1, "a more flag") == 1
        offers = try SyncOffers.list(&reader)
        try reader.end()
        guard !more || !offers.isEmpty else { throw SyncWireReader.malformed("a projects page says more follow and offers none") }
    }

    /// Every page the answerer offers, asked for one after another through `ask` (the answer's
    /// bytes for a request): the offers of all of them, ascending. A page must start after the page
    /// before (an answerer cannot make the asker go round), and a run asks at most
    /// `SyncWire.maximumPages` pages.
    public static func all(_ ask: (SyncProjectsRequest) throws -> [UInt8]) throws -> [SyncProjectOffer] {
        var offers: [SyncProjectOffer] = []
        var after: ProjectID? = nil
        for _ in 0..<SyncWire.maximumPages {
            let page = try SyncProjectsPage(parsing: try ask(SyncProjectsRequest(after: after)))
            if let after, let first = page.offers.first, !after.bytes.lexicographicallyPrecedes(first.project.bytes) {
                throw SyncWireReader.malformed("a projects page starts at or before the project it was asked to follow")
            }
            offers += page.offers
            guard page.more, let last = page.offers.last else { return offers }
            after = last.project
        }
        throw SyncExchangeError(.tooManyRounds, "the peer still offered more projects after \(SyncWire.maximumPages) pages")
    }
}
