import CryptoVault
import Writing

/// `sync.projects` asks for one page of the projects the answerer offers (SECURITY.md §19.9): the
/// first page (the version byte alone), or the page after the last project of the page before.
/// A vault may hold more projects than one message, or one egress decision, can name (review 17
/// s8, F15: at 125 projects the answer's egress entry could not be written, and no list of more
/// than 1,024 could be sent at all), so the list is paged.
///
/// The request may name projects the asker holds already (`held`, before `after`; the asker names its
/// privileged ones): their offers then carry no name, which the asker needs only to make a project it
/// lacks. An answering device read each privileged project's sealed name in a privileged session of
/// its compartment to describe it, one recorded session per chart per whole exchange between own
/// devices (review 17 s10, N-s10-6).
/// Without a list the request is the one of the build before it (1 or 17 bytes), answered as ever.
public struct SyncProjectsRequest: Sendable, Equatable {
    /// Projects one request may name as held: 16 KiB. Past them a project is described, as before.
    public static let maximumHeld = 1024

    /// The last project of the page before; nil for the first page.
    public let after: ProjectID?
    /// Projects the asker holds, after `after`, ascending (at most `maximumHeld`; empty: none said).
    public let held: [ProjectID]

    /// `held` is kept as the request can say it: those after `after`, ascending, the first `maximumHeld`.
    public init(after: ProjectID?, held: [ProjectID] = []) {
        self.after = after
        let later = Set(held).filter { project in after.map { $0.bytes.lexicographicallyPrecedes(project.bytes) } ?? true }
        self.held = Array(later.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.prefix(Self.maximumHeld))
    }

    public func serialized() -> [UInt8] {
        var out = [SyncWire.version]
        if !held.isEmpty {
            SyncWireReader.append(UInt64(held.count), size: 2, to: &out)
            for project in held { out += project.bytes }
        }
        return out + (after?.bytes ?? [])
    }

    /// 1 byte: the first page; 17: the page after a project; else the held projects (1...1024,
    /// ascending), then `after` or nothing. Each encoding is one request's only.
    public init(parsing bytes: [UInt8]) throws(SyncExchangeError) {
        var reader = SyncWireReader(bytes)
        try reader.version()
        guard bytes.count != 1, bytes.count != 17 else {
            after = bytes.count == 1 ? nil : try reader.identifier(ProjectID.self)
            held = []
            return
        }
        let count = try reader.count(2, maximum: Self.maximumHeld, itemSize: 16, "projects held by the asker")
        guard count > 0 else { throw SyncWireReader.malformed("a list of the projects the asker holds names none") }
        var held: [ProjectID] = []
        for _ in 0..<count {
            let project = try reader.identifier(ProjectID.self)
            guard held.last.map({ $0.bytes.lexicographicallyPrecedes(project.bytes) }) ?? true else {
                throw SyncWireReader.malformed("the projects the asker holds are not strictly ascending")
            }
            held.append(project)
        }
        after = reader.remaining == 16 ? try reader.identifier(ProjectID.self) : nil
        try reader.end()
        if let after, !after.bytes.lexicographicallyPrecedes(held[0].bytes) {
            throw SyncWireReader.malformed("a project the asker holds is not after the project the page follows")
        }
        self.held = held
    }

    /// `error`, a refusal of this request, said plainly when a device of the build before requests
    /// named held projects refused it: that build reads the request's first 16 bytes after the
    /// version as `after` and refuses the rest as "N bytes follow the last field", words it cannot
    /// change. Nil for any other. The asker then asks as that build does (`SyncInitiator`).
    public func refusedByOlderBuild(_ error: SyncExchangeError, peer name: String) -> SyncExchangeError? {
        guard !held.isEmpty, error.code == .malformedMessage, error.message.hasSuffix(": \(serialized().count - 17) bytes follow the last field") else {
            return nil
        }
        return SyncExchangeError(.malformedMessage, "\(name) runs an older build of vaultctl, whose 'sync.projects' takes no list of the "
                                 + "projects the asker holds (within exchange version 2): update vaultctl on \(name), then sync again (\(error.message))")
    }

    /// What the asker says once in a run that met such a device and asked it as that build asks: the
    /// exchange went on, but that device still reads the name of every chart it describes in a
    /// privileged session of its own (recorded there) until it is updated.
    public static func olderBuildNote(peer name: String) -> String {
        "\(name) runs an older build of vaultctl, whose 'sync.projects' takes no list of the projects the asker holds: "
            + "it was asked as that build asks, so it opened a privileged session for each chart it described: update vaultctl on \(name)"
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
        offers = try SyncOffers.list(&reader, undescribed: true)
        try reader.end()
        guard !more || !offers.isEmpty else { throw SyncWireReader.malformed("a projects page says more follow and offers none") }
    }

    /// Every page the answerer offers, asked for one after another through `ask` (the answer's
    /// bytes for a request): the offers of all of them, ascending. A page must start after the page
    /// before (an answerer cannot make the asker go round), and a run asks at most
    /// `SyncWire.maximumPages` pages. Each request names the projects of `held` after its `after`
    /// (the first `SyncProjectsRequest.maximumHeld`): their offers may come without a name.
    public static func all(held: [ProjectID] = [], _ ask: (SyncProjectsRequest) throws -> [UInt8]) throws -> [SyncProjectOffer] {
        var offers: [SyncProjectOffer] = []
        var after: ProjectID? = nil
        for _ in 0..<SyncWire.maximumPages {
            let request = SyncProjectsRequest(after: after, held: held)
            let page = try SyncProjectsPage(parsing: try ask(request))
            // A name is left out only of a project the request named as held (the asker cannot make one from such an offer).
            if let unnamed = page.offers.first(where: { $0.name.isEmpty && !request.held.contains($0.project) }) {
                throw SyncWireReader.malformed("project \(unnamed.project)'s offer comes without its name, though the request did not name it as held")
            }
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
