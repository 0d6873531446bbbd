import CryptoVault
import Writing

/// How the exchange reaches a paired device: a request and its answer, over the channel (§9.9).
/// A refusal by the peer throws; a `SyncExchangeError` when the peer said why in the exchange's terms.
/// A request's body is a `SyncOutgoing`: records and offers only as the egress funnel released them.
public protocol SyncTransport: AnyObject {
    /// The device on the other end, as pinned at pairing.
    var peer: DeviceProfile { get }
    func request(_ kind: String, body: SyncOutgoing) throws -> [UInt8]
    /// `request`, waiting at most `seconds` for the answer (then `deadlineExceeded`); a transport
    /// that cannot bound its wait leaves it to the run's deadline, checked before each request.
    func request(_ kind: String, body: SyncOutgoing, within seconds: Double) throws -> [UInt8]
}

extension SyncTransport {
    public func request(_ kind: String, body: SyncOutgoing, within seconds: Double) throws -> [UInt8] { try request(kind, body: body) }
}

/// What one sync with a paired device did.
public struct SyncRunReport: Sendable, Equatable {
    public struct Project: Sendable, Equatable {
        public let project: ProjectID
        public let access: String
        public var sent = 0
        public var received = 0
        public var refused: [String] = []
        public var refusedByPeer: [String] = []
        /// How many of the peer's records this vault refused, and how many of this vault's the peer
        /// refused, those the refusing side held already (`replayedRecord`) apart: a batch refused
        /// whole (one code in `refused` or `refusedByPeer`) counts each record it carried. Kept for
        /// `sync status` (`SyncProjectRefusal`).
        public var recordsRefused = 0
        public var recordsRefusedByPeer = 0
        /// Whether this vault's records were offered to the peer (a push step ran): only then does
        /// a push that refused none say the peer takes them.
        var pushed = false
        public var documentsWritten = 0
        public var branchesMade = 0
        /// Why the project was skipped: its sync state here is damaged and it works local-only
        /// (SECURITY.md §19.5) until `vaultctl repair --from DEVICE`; nil when it synced.
        public var localOnly: String?
        /// Why the project was left for this run (`sync.project-skipped`, recorded): its records
        /// could not be sent or the peer refused the project's request, for a reason of this project
        /// alone (`SyncInitiator.skipsTheProject`); nil when it synced.
        public var skipped: String?
        /// Why the project was left as damaged, here or on the peer (`damagedProject`: its data
        /// there does not open): `vaultctl repair --from DEVICE` on that device mends it, and `sync
        /// now` fails naming it; nil when it was not.
        public var damaged: String?
        /// The devices met signing two histories of the project in this run (a fork, SECURITY.md
        /// §19.4), either side's copy refused here, with the least number at which one was met.
        public var forked: [DeviceID: UInt64] = [:]
        /// This device's records of the project its origin refused after making it a viewer, set
        /// aside here (`now`: by this run), their words kept in branches (`VaultSync+SetAside`).
        public var setAside: VaultSync.SetAside?
        /// Whether the project's offer was refused here only by a standing choice of the owner's
        /// (`SyncProjectRefusal.declinedCodes`; a device not the owner's own): said, in `refused`,
        /// but not a project that did not sync (`notSynced`).
        public var declined = false
        /// The own device answering destroyed the project (its `projectDestroyed`, asked why it did
        /// not take this vault's offer: `SyncInitiator.whyNotTaken`): this vault's compartment of
        /// it, which the owner destroys here too to have it gone everywhere; nil otherwise. Said, not
        /// a project that did not sync (`notSynced`): the owner's choice, made there (N-s14-5).
        public var shreddedThere: String?
    }

    public var projects: [Project] = []
    /// What the run says once beside its projects: an own device of an older build, asked as that
    /// build asks so the exchange goes on, to be updated (`SyncProjectsRequest.olderBuildNote`).
    public var notes: [String] = []

    public init() {}

    public var sent: Int { projects.reduce(0) { $0 + $1.sent } }
    public var received: Int { projects.reduce(0) { $0 + $1.received } }
    public var refused: Int { projects.reduce(0) { $0 + $1.refused.count + $1.refusedByPeer.count } }
}

/// The asking side of the exchange (SECURITY.md §19.9), what `vaultctl sync now` runs: asks the peer
/// which projects it offers, makes those this vault lacks, offers the owner's own device the ones it
/// lacks, then per project pulls what this vault lacks (in batches, until the peer has no more) and
/// pushes what the peer lacks. Local edits are committed as records first; every record received is
/// verified by `VaultSync.receive`; every record sent passes the egress funnel.
public struct SyncInitiator {
    /// Pull rounds per project before the exchange gives up (each brings up to a batch).
    public static let maximumRounds = 10_000
    /// How long a run may take, unless the caller says otherwise (a first sync of a large vault
    /// over a slow network fits; a peer that stalls does not hold the owner's command for longer).
    public static let defaultDeadlineSeconds = 300.0

    public let endpoint: SyncEndpoint
    public let transport: SyncTransport
    public let coordinator: SyncCoordinator?
    /// The run ends with `deadlineExceeded` once this many seconds have passed since it began
    /// (none left, or not a number: at its first request; infinity: never).
    public let deadlineSeconds: Double
    /// The compartments of the projects this run syncs (nil: every project). A sync started by a
    /// save syncs the saved projects alone (review 17 s10, N-s10-6): with an own device only they
    /// are offered, and its pages of offers are not asked for (`exchange`).
    public var scope: Set<CompartmentID>?

    /// `refusals`: the answering device's budget of refusals recorded one by one (SECURITY.md §19.9):
    /// what it sends that is refused grows this vault's audit log by a bounded amount per minute.
    public init(vault: UnlockedVault, transport: SyncTransport, coordinator: SyncCoordinator? = .shared, clock: VaultClock = .system,
                deadlineSeconds: Double = defaultDeadlineSeconds, refusals: SyncRefusalBudget = .asking,
                quota: SyncDeviceQuota = SyncDeviceQuota()) throws {
        var endpoint = try SyncEndpoint(vault: vault, peer: transport.peer, clock: clock)
        endpoint.refusals = refusals
        endpoint.quota = quota
        self.endpoint = endpoint
        self.transport = transport
        self.coordinator = coordinator
        self.deadlineSeconds = deadlineSeconds
    }

    /// With a device that is or was the owner's first: each side's demotions to the other (review 17
    /// s8, F4). This side's list goes only to a device trusted `mine` here (else an empty one); the
    /// answer is empty unless the peer trusts this device `mine`, and each entry is taken on its own
    /// signature. A device never the owner's here is not asked.
    private func passDemotions(by deadline: SyncDeadline) throws {
        guard endpoint.peerWasMine else { return }
        let answer = try SyncDemotionList(parsing: try ask(SyncWire.demotionsKind, SyncOutgoing(try endpoint.demotionsToPass()), by: deadline))
        try endpoint.takeDemotions(answer, request: SyncWire.demotionsKind)
    }

    /// Sends a request, given only the time left before the run's deadline.
    /// A device of an older version of the exchange refuses every request in that build's words,
    /// said plainly here: that device runs an older build, to be updated (§19.9, "Versions").
    func ask(_ kind: String, _ body: SyncOutgoing, by deadline: SyncDeadline) throws -> [UInt8] {
        do { return try transport.request(kind, body: body, within: try deadline.remaining(with: peer)) } catch let error as SyncExchangeError {
            throw SyncVersionRefusal.refusedByOlderVersion(error, peer: peer.name) ?? error
        }
    }

    /// A pull; a device of a build before pulls carried tips refuses it in that build's words, said
    /// plainly here: that device runs an older build, to be updated (closing note s11, Left open).
    func pull(_ request: SyncPullRequest, by deadline: SyncDeadline) throws -> [UInt8] {
        do { return try ask(SyncWire.pullKind, SyncOutgoing(request), by: deadline) } catch let error as SyncExchangeError {
            throw request.refusedByOlderBuild(error, peer: peer.name) ?? error
        }
    }

    var vault: UnlockedVault { endpoint.vault }
    var peer: DeviceProfile { endpoint.peer }

    /// Runs the exchange; its end (or its error's code) is kept for `sync status`, and recorded.
    public func run() throws -> SyncRunReport {
        // Damaged exchange tables are never read as if whole (nor written: the run's end is not kept
        // in them): damage of them as a whole, or of this device's rows, stops the run; a project's
        // damaged rows leave that project local-only (`exchange`).
        let damage = try vault.transaction { tx in SyncExchangeHealth.damage(in: tx) }
        if let whole = damage.whole { throw SyncExchangeHealth.refusal(whole) }
        if let why = damage.reason(for: peer.deviceID) { throw SyncError(.damagedSyncState, why) }
        let paused = try vault.transaction { tx in try SyncExchangeStore(database: tx.database).peer(peer.deviceID)?.paused } ?? false
        guard !paused else {
            throw SyncExchangeError(.paused, "sync with \(peer.name) is paused here: 'vaultctl sync resume --peer \(peer.fingerprint)' resumes it")
        }
        let deadline = SyncDeadline(seconds: deadlineSeconds, clock: endpoint.clock)
        // One run with this peer at a time, the wait within the deadline (F17-17: overlapping runs
        // moved records twice, and the second was refused and audited as a replay).
        let turn = try SyncExchangeLock(vault: vault, peer: peer, until: deadline)
        defer { withExtendedLifetime(turn) {} }
        var report = SyncRunReport()
        // What the device's refusals left unrecorded in a window that ended is recorded once.
        if let unrecorded = endpoint.refusals?.open(peer.deviceID).unrecorded, unrecorded > 0 {
            endpoint.writeRefusal(SyncWire.pullKind, reason: SyncExchangeErrorCode.tooManyRefusals.rawValue,
                                  details: [.init("unrecorded", String(unrecorded))])
        }
        do {
            try exchange(into: &report, damage: damage, by: deadline)
        } catch {
            endpoint.keepRefusals(of: report.projects)
            // The peer's refusal of the whole exchange: said as such, and each project synced with
            // it kept as left by it (`refusedWhole`; review 17 s13, LOW 5).
            let error = (error as? SyncPeerFailure).map { refusedWhole($0, besides: Set(damage.projects.keys)) } ?? error
            try? keep(report, error: Self.code(of: error))
            throw error
        }
        // What each project's step refused, either way, is kept until a step refuses nothing (F20).
        endpoint.keepRefusals(of: report.projects)
        endpoint.forgetRefusedWhole()
        try keep(report, error: nil)
        // A restored project whose awaited devices were all demoted (passed on in this run) or
        // stopped sharing it takes changes again.
        try endpoint.settleRestoreWaits()
        return report
    }

    public static func code(of error: Error) -> String {
        switch error {
        case let error as SyncExchangeError: error.code.rawValue
        case let error as SyncError: error.code.rawValue
        case let error as SyncPeerFailure: "peer-\(error.code.rawValue)"
        // Another module's coded error (the channel's: the peer's service failed, say) by its code,
        // never a Swift type name, which `sync status` showed the owner (review 17 s13, LOW 3).
        default: Mirror(reflecting: error).children.first { $0.label == "code" }.map { "\($0.value)" } ?? String(describing: type(of: error))
        }
    }

    private func keep(_ report: SyncRunReport, error: String?) throws {
        try vault.transaction { tx in
            try SyncExchangeStore(database: tx.database).recordAttempt(peer.deviceID, at: endpoint.clock.now(), error: error,
                                                                       sent: report.sent, received: report.received)
            var details: [VaultEvent.Detail] = [.init("peer", peer.deviceID.hex), .init("projects", String(report.projects.count)),
                                                .init("sent", String(report.sent)), .init("received", String(report.received)),
                                                .init("refused", String(report.refused))]
            if let error { details.append(.init("error", error)) }
            try tx.record(.syncExchange, details: details)
        }
    }

    private func exchange(into report: inout SyncRunReport, damage: SyncExchangeDamage, by deadline: SyncDeadline) throws {
        try passDemotions(by: deadline)
        let projects: [(WritingProject, SyncPlan)]
        if let scope, endpoint.peerIsMine {
            // A save's sync with an own device: its projects alone are offered (one the device holds
            // is recognised there), and the device's pages, which would describe every project it
            // holds, a privileged one's name read in a session, are not asked for (N-s10-6).
            projects = try offerOwnProjects(where: { scope.contains($0.compartment.id) && damage.projects[$0.id] == nil }, into: &report, by: deadline)
        } else {
            projects = try offeredProjects(into: &report, damage: damage, by: deadline)
        }
        for (project, plan) in Self.privilegedFirst(projects) where scope?.contains(project.compartment.id) ?? true {
            try step(project, plan: plan, into: &report, by: deadline)
        }
    }

    /// `projects` with the privileged ones first, each group in its order. Words that reach a vault
    /// in an ordinary project before it holds them in a privileged one stay ordinary there (SECURITY.md
    /// §11.7), so a session note written in a chart on the laptop and pasted into a shared book must
    /// reach the desk in the chart first: in id order it came second for about half of all such
    /// pairs, and the desk then passed the pasted note to the colleague (review 17 s14, N-s14-1).
    static func privilegedFirst(_ projects: [(WritingProject, SyncPlan)]) -> [(WritingProject, SyncPlan)] {
        projects.filter { $0.0.isPrivileged } + projects.filter { !$0.0.isPrivileged }
    }

    /// The projects the peer offers (made here when new, as `adopt` allows) and, to an own device,
    /// those it lacks that this vault offers it, each with what this vault does with it.
    private func offeredProjects(into report: inout SyncRunReport, damage: SyncExchangeDamage, by deadline: SyncDeadline) throws -> [(WritingProject, SyncPlan)] {
        // A device of the build before requests named held projects refuses one that does: it is
        // asked as that build asks for the rest of the run (its pages name every project, a session
        // per chart there, as before), so the exchange goes on (reviewer13 on a92464f).
        var olderBuild = false
        let offers = try SyncProjectsPage.all(held: try heldToSay()) { request in
            if !olderBuild {
                do { return try ask(SyncWire.projectsKind, SyncOutgoing(request), by: deadline) } catch let error as SyncExchangeError
                    where request.refusedByOlderBuild(error, peer: peer.name) != nil {
                    olderBuild = true
                }
            }
            return try ask(SyncWire.projectsKind, SyncOutgoing(SyncProjectsRequest(after: request.after)), by: deadline)
        }
        // Said once in the run, however many pages were asked as that build asks (daemon13's open note).
        if olderBuild { report.notes.append(SyncProjectsRequest.olderBuildNote(peer: peer.name)) }
        // A project whose exchange rows here are damaged is not read as if they were whole: local-only.
        let stopped = try endpoint.recordNoLongerShared(besides: Set(offers.map(\.project)).union(damage.projects.keys))
        try sayNoLongerShared(stopped, into: &report, by: deadline)
        var projects: [(WritingProject, SyncPlan)] = []
        for offer in offers {
            if let why = damage.reason(for: offer.project) {
                var entry = SyncRunReport.Project(project: offer.project, access: "none")
                entry.localOnly = why
                report.projects.append(entry)
                continue
            }
            if let damaged = try endpoint.damagedRow(of: offer.project) {
                var entry = SyncRunReport.Project(project: offer.project, access: "none")
                entry.localOnly = damaged.problem + "; 'vaultctl repair' mends it"
                report.projects.append(entry)
                continue
            }
            let project: WritingProject
            switch try endpoint.adopt(offer, request: SyncWire.projectsKind) {
            case .success(let adopted): project = adopted
            case .failure(let refusal):
                // Recorded by the endpoint; shown with the run, so the owner sees what was refused.
                report.projects.append(refusedOffer(offer.project, refusal))
                continue
            }
            // What the answerer may do with the project is decided here, never by its offer's access.
            switch try endpoint.plan(for: project) {
            case .success(let plan): projects.append((project, plan))
            case .failure(let refusal):
                endpoint.recordRefusal(SyncWire.projectsKind, reason: refusal.code.rawValue, project: project.id)
                report.projects.append(refusedOffer(project.id, refusal))
            }
        }
        // An own device that lacks a signer of a project both hold learns it before the pushes (F20-2).
        if endpoint.peerIsMine { try offerRostersLacked(offers, held: projects.map(\.0), by: deadline) }
        let offered = Set(offers.map(\.project))
        return projects + (try offerOwnProjects(where: { !offered.contains($0.id) && damage.projects[$0.id] == nil }, into: &report, by: deadline))
    }

    /// The report's entry of an offer refused here: declined when only a standing choice of the
    /// owner's refused it, for a device not the owner's own (an own device's offer refused is a
    /// disagreement between the owner's devices, never a choice), or a project destroyed here,
    /// which an own device offers until it is destroyed there too (`SyncProjectRefusal.declines`).
    private func refusedOffer(_ project: ProjectID, _ refusal: SyncExchangeError) -> SyncRunReport.Project {
        var entry = SyncRunReport.Project(project: project, access: "none", refused: [refusal.code.rawValue])
        entry.declined = SyncProjectRefusal.declines(refusal.code.rawValue, fromOwnDevice: endpoint.peerIsMine)
        return entry
    }

    /// The privileged projects this vault holds, said to the owner's own device so that it offers
    /// them without their names (review 17 s10, N-s10-6: describing one opened a session there, per
    /// chart per whole exchange). An ordinary project's name opens no session, and reading it is how
    /// the answerer finds one that no longer opens (attack review s8, F8): not said. Never to someone
    /// else's device: which projects this vault holds is not its business, and it is never offered a
    /// privileged one.
    private func heldToSay() throws -> [ProjectID] {
        guard endpoint.peerIsMine else { return [] }
        return try vault.transaction { tx in try WritingStore(tx).projects().filter(\.isPrivileged).map(\.id) }
    }

    /// One project's steps, its outcome added to `report`.
    private func step(_ project: WritingProject, plan: SyncPlan, into report: inout SyncRunReport, by deadline: SyncDeadline) throws {
        var entry = SyncRunReport.Project(project: project.id, access: plan.access.name)
        // A local-only project is skipped with its reason; the others still sync. Every step
        // rebuilds the replica first, so the damage is met before anything changed.
        // So is one whose peer's records make what the writing store refuses (recorded).
        do { try sync(project, plan: plan, into: &entry, by: deadline) } catch let error as SyncError where error.code == .damagedSyncState {
            entry.localOnly = error.message
        } catch let error as SyncError where error.code == .writingRefused {
            entry.localOnly = error.message
            entry.refused.append(error.code.rawValue)
        } catch let error as SyncExchangeError where Self.skipsTheProject.contains(error.code) {
            // One project's record that cannot travel (or that the peer would not answer for)
            // never stops the others: recorded, and the run goes on (SECURITY.md §19.9).
            skip(project, error.code.rawValue, error.message, into: &entry)
        } catch let error as SyncError {
            // Any other failure of the project's own records here (a commit past a bound, a
            // record that cannot be made) is the project's alone: it never stops the others.
            skip(project, error.code.rawValue, error.message, into: &entry)
        } catch let error as SyncPeerFailure {
            skip(project, "peer-\(error.code.rawValue)", error.message, into: &entry)
            if error.code == .damagedProject { entry.damaged = error.message }
        } catch where SyncProjectDamage.isTheProjects(error) {
            // The project's own data here that does not open (a sealed block, title or name) is
            // the project's alone too: it never stops the others (attack review s8, F8). So is
            // a refusal of the writing store, said as such: no repair mends it (F8's hint).
            let failure = SyncProjectDamage.error(project.id, error, on: "on this device")
            skip(project, failure.code.rawValue, failure.message, into: &entry)
            if failure.code == .damagedProject { entry.damaged = failure.message }
        }
        if entry.skipped == nil, entry.localOnly == nil { endpoint.clearSkipped(project.id) }
        if entry.setAside == nil { entry.setAside = try? endpoint.setAsideKept(project.id) }
        report.projects.append(entry)
    }

    /// Leaves `project` for this run with its reason: recorded (`sync.project-skipped`), kept for
    /// `sync status` until the project next syncs with this device, and shown by `sync now`. Damage
    /// is recorded once, when the project is first left for it: it stays until repaired, and every
    /// exchange (the daemon's every minute) would record it again.
    private func skip(_ project: WritingProject, _ reason: String, _ message: String, into entry: inout SyncRunReport.Project) {
        entry.skipped = "\(reason): \(message)"
        // So is a device past its day's bound: every run of the day would record it again.
        let lasting = reason.hasSuffix(SyncErrorCode.damagedProject.rawValue) || reason == SyncExchangeErrorCode.quotaExceeded.rawValue
        endpoint.recordSkipped(project.id, reason: reason, message: message, once: lasting)
    }

    /// The owner's own device is offered this vault's projects `wanted` picks (those it did not
    /// offer back; a save's), in pages of `SyncWire.maximumOffers` (one egress decision each; review
    /// 17 s8, F15). Only those are described: a privileged one's name is read in a session.
    private func offerOwnProjects(where wanted: (WritingProject) -> Bool, into report: inout SyncRunReport,
                                  by deadline: SyncDeadline) throws -> [(WritingProject, SyncPlan)] {
        guard endpoint.peerIsMine else { return [] }
        let ours = try endpoint.offers(of: wanted)
        var taken: [(WritingProject, SyncPlan)] = []
        for start in stride(from: 0, to: ours.count, by: SyncWire.maximumOffers) {
            let page = Array(ours[start..<min(start + SyncWire.maximumOffers, ours.count)])
            taken += try offerOwnPage(page, into: &report, by: deadline)
        }
        return taken
    }

    /// One page of `offerOwnProjects`: the projects the peer took.
    private func offerOwnPage(_ ours: [SyncProjectOffer], into report: inout SyncRunReport,
                              by deadline: SyncDeadline) throws -> [(WritingProject, SyncPlan)] {
        var projects: [ProjectID: WritingProject] = [:]
        for offer in ours {
            guard let project = try endpoint.project(offer.project) else { continue }
            projects[project.id] = project
        }
        let released: SyncOutgoing
        do { released = try endpoint.release(SyncOffers.serialize(ours), of: Array(projects.values)) } catch let error as SyncExchangeError where error.code == .inMemoryMode {
            // Nothing leaves the in-memory copy: its projects are not offered, and the pulls go on.
            for project in projects.keys.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
                endpoint.recordSkipped(project, reason: error.code.rawValue, message: error.message)
                var entry = SyncRunReport.Project(project: project, access: SyncAccess.mine.name)
                entry.skipped = "\(error.code.rawValue): \(error.message)"
                report.projects.append(entry)
            }
            return []
        }
        let taken = try SyncOffers.parseTaken(try ask(SyncWire.offerKind, released, by: deadline))
        // A project the device did not take: asked why, so a project destroyed there is said here (N-s14-5).
        for offer in ours where taken[offer.project] != true {
            guard let project = projects[offer.project], let entry = try whyNotTaken(project, by: deadline) else { continue }
            report.projects.append(entry)
        }
        return ours.compactMap { offer in taken[offer.project] == true ? projects[offer.project].map { ($0, SyncPlan(access: .mine, pulls: true)) } : nil }
    }

    /// Pull until the peer has nothing more this vault lacks, then push what it lacks. From a device
    /// that may not write the project here (a viewer) one pull learns what it holds and its records
    /// are refused unread (`viewerCannotWrite`, recorded).
    private func sync(_ project: WritingProject, plan: SyncPlan, into entry: inout SyncRunReport.Project, by deadline: SyncDeadline) throws {
        // A privileged project settled here has nothing to commit: no session opens for it (N-s10-6);
        // its tips come from the stored records' clear columns.
        var (held, tips) = try endpoint.settledVector(of: project) ?? endpoint.commitAndHeldWithTips(project, coordinator: coordinator)
        var peerHeld: [DeviceID: UInt64] = [:]
        // Devices whose record at the peer's counter is held here under another hash (the peer's
        // tips say so): a fork that equal counters hide (review 17 s10, N-s10-4 (c)).
        var seen: [DeviceID: UInt64] = [:]
        var round = 0, pulledAll = false
        while true {
            round += 1
            guard round <= Self.maximumRounds else {
                throw SyncExchangeError(.tooManyRounds, "project \(project.id): the peer still had more after \(Self.maximumRounds) rounds")
            }
            // The tips go with the first pull only: the peer answers a fork they show once.
            let request = SyncPullRequest(project: project.id, held: held, tips: round == 1 ? tips : [:])
            let answer = try SyncPullAnswer(parsing: try pull(request, by: deadline))
            tips = [:]
            peerHeld = answer.held
            if round == 1, plan.pulls { seen = try endpoint.forksSeen(of: project, held: answer.held, tips: answer.tips) }
            guard plan.pulls else {
                if !answer.records.isEmpty {
                    endpoint.recordRefusal(SyncWire.pullKind, reason: SyncExchangeErrorCode.viewerCannotWrite.rawValue, project: project.id)
                    entry.refused.append(SyncExchangeErrorCode.viewerCannotWrite.rawValue)
                    entry.recordsRefused += answer.records.count
                }
                // A viewer's records are not taken: it holds none of this device's that this vault
                // lacks, or a restored project's wait for it goes on (SECURITY.md §19.10).
                pulledAll = (answer.held[endpoint.author.device] ?? 0) <= (held[endpoint.author.device] ?? 0)
                break
            }
            var stored = 0
            if !answer.records.isEmpty {
                stored = try take(answer.records, of: project, into: &entry)
                held = try endpoint.commitAndHeld(project, coordinator: coordinator)
            }
            // A batch of which nothing was kept would come again as it was: stop asking.
            guard answer.more, !answer.records.isEmpty, stored > 0 else { pulledAll = !answer.more && entry.recordsRefused == 0; break }
        }
        if pulledAll { try endpoint.pulledAll(project) }
        let waited = entry.refused.contains(SyncErrorCode.missingParents.rawValue)
        let unmet = seen.filter { entry.forked[$0.key] == nil }
        if plan.pulls, waited || !unmet.isEmpty {
            try seekForks(of: project, held: held, lowering: unmet, all: waited, into: &entry, by: deadline)
            held = try endpoint.commitAndHeld(project, coordinator: coordinator)
        }
        // This vault's copy of each fork met goes to the peer too, so that it meets the fork
        // (refused there, recorded naming the device) instead of saying the project syncs.
        var offered = peerHeld
        for (device, counter) in entry.forked { offered[device] = min(offered[device] ?? 0, counter - 1) }
        // And the copy of each that left here (the fork rule kept the peer's): else a peer whose copy
        // stays never meets the fork, and never names it (fork13's answering desk, 3 runs of 4).
        let leftOut = try endpoint.leftOutCopies(project, at: entry.forked)
        try push(project, peerHeld: offered.filter { $0.value > 0 }, also: leftOut, into: &entry, by: deadline)
        entry.pushed = true
        try keepPeerVector(of: project, held: held, peerHeld: peerHeld, pushedAll: entry.refusedByPeer.isEmpty)
    }

    /// Keeps what the peer holds of the project after the run (for `sync status`): what it said it
    /// held, and what it took of this vault's, of the devices whose records the project takes here
    /// only. The peer's vector is its word: one naming devices this vault knows nothing of (a
    /// thousand made-up ones, say) must not make a row past what a vector holds, which the health
    /// check would call damage and turn sync off with every device (attack review s6, P1); and a
    /// counter of a device whose records cannot verify here says nothing anyway.
    private func keepPeerVector(of project: WritingProject, held: [DeviceID: UInt64], peerHeld: [DeviceID: UInt64], pushedAll: Bool) throws {
        try vault.transaction { tx in
            let known = try endpoint.devices(for: project, in: tx)
            let said = peerHeld.filter { known[$0.key] != nil }
            try SyncExchangeStore(database: tx.database).setPeerVector(peer.deviceID, project: project.id, pushedAll ? Self.union(held, said) : said)
        }
    }

    /// Takes a batch of the peer's records; returns how many were stored.
    private func take(_ records: [[UInt8]], of project: WritingProject, skippingHeld: Bool = false,
                      into entry: inout SyncRunReport.Project) throws -> Int {
        let receipt: SyncReceipt
        do { receipt = try endpoint.receive(records, for: project, coordinator: coordinator, skippingHeld: skippingHeld) } catch let error as SyncError where error.code == .writingRefused {
            // None of the batch was kept (the caller leaves the project local-only for the run).
            entry.recordsRefused += records.count
            throw error
        } catch let error as SyncExchangeError where error.code == .quotaExceeded {
            // The device is past its day's bound here: none of the batch kept, the project left for the run.
            entry.refused.append(error.code.rawValue)
            entry.recordsRefused += records.count
            throw error
        }
        entry.received += receipt.stored
        entry.refused += receipt.refused.map(\.error.code.rawValue)
        Self.noteForks(receipt.refused, among: records, into: &entry)
        entry.recordsRefused += receipt.refused.filter { !SyncRunReport.Project.heldAlready.contains($0.error.code.rawValue) }.count
        entry.documentsWritten += receipt.documentsWritten
        entry.branchesMade += receipt.branchesMade
        return receipt.stored
    }

    /// Notes each device whose own record this vault refused as a fork (`equivocation`, its signer
    /// the device named), with the least number met; a record built on another's fork is not one.
    static func noteForks(_ refused: [SyncRefusal], among records: [[UInt8]], into entry: inout SyncRunReport.Project) {
        let forks = refused.filter { $0.error.code == .equivocation && $0.device != nil && $0.record != nil }
        guard !forks.isEmpty else { return }
        let hashes = Set(forks.compactMap(\.record))
        for bytes in records where hashes.contains(SHA256.hash(bytes)) {
            guard let record = try? ChangeRecordCodec.parse(bytes),
                  forks.contains(where: { $0.record == record.hash && $0.device == record.device }) else { continue }
            entry.forked[record.device] = min(entry.forked[record.device] ?? record.counter, record.counter)
        }
        // A held record of the forking device that the fork rule took out here (SECURITY.md §19.4).
        for refusal in forks {
            guard let device = refusal.device, let counter = refusal.forkedNumber else { continue }
            entry.forked[device] = min(entry.forked[device] ?? counter, counter)
        }
    }

    /// Records were left waiting for parents this vault's vector said it held (`all`), or the peer's
    /// tips named another record at a number held here (`lowering`: each device and that number):
    /// one of those parents may be the peer's copy of a record number this vault holds under
    /// another hash, a fork its version vector cannot show (SECURITY.md §19.4). One more pull brings
    /// each such record as the peer holds it, parents first (with `all`, every device's counter one
    /// lower: its latest): one held here is skipped, a fork is refused (`equivocation`, naming the
    /// device), and so is what is built on it.
    private func seekForks(of project: WritingProject, held: [DeviceID: UInt64], lowering seen: [DeviceID: UInt64], all: Bool,
                           into entry: inout SyncRunReport.Project, by deadline: SyncDeadline) throws {
        var lowered = all ? held.compactMapValues { $0 > 1 ? $0 - 1 : nil } : held
        for (device, counter) in seen { lowered[device] = min(lowered[device] ?? 0, counter - 1) }
        lowered = lowered.filter { $0.value > 0 }
        let answer = try SyncPullAnswer(parsing: try pull(SyncPullRequest(project: project.id, held: lowered), by: deadline))
        guard !answer.records.isEmpty else { return }
        _ = try take(answer.records, of: project, skippingHeld: true, into: &entry)
    }

    private func push(_ project: WritingProject, peerHeld: [DeviceID: UInt64], also extra: [[UInt8]] = [],
                      into entry: inout SyncRunReport.Project, by deadline: SyncDeadline) throws {
        // The peer lacks nothing stored here: no step (a privileged project's would open a session).
        guard try !extra.isEmpty || endpoint.storesMissing(project, from: peerHeld) else { return }
        let batches = try endpoint.releasedPushes(project, from: peerHeld, also: extra)
        for (index, (released, _)) in batches.enumerated() {
            // This batch's records and those of the batches after it: what a refusal leaves unsent.
            let unsent = batches[index...].reduce(0) { $0 + $1.records }
            let answer: SyncPushAnswer
            do {
                answer = try SyncPushAnswer(parsing: try ask(SyncWire.pushKind, released, by: deadline))
            } catch let error as SyncExchangeError where Self.refusesTheProject.contains(error.code) {
                // The peer will not take this project's records from this device (made a viewer, or
                // the share revoked, since its offer): recorded here too, and the other projects go on.
                endpoint.recordPushRefused(project.id, reason: error.code.rawValue, records: unsent)
                entry.refusedByPeer.append(error.code.rawValue)
                entry.recordsRefusedByPeer += unsent
                // Refused by the project's origin, which made this device a viewer: set aside (said by the run).
                if error.code == .viewerCannotWrite { entry.setAside = try? endpoint.setAsideRefused(project, peerHeld: peerHeld) }
                return
            }
            entry.sent += answer.stored
            entry.refusedByPeer += answer.refused
            entry.recordsRefusedByPeer += answer.refused.filter { !SyncRunReport.Project.heldAlready.contains($0) }.count
            for (reason, count) in Dictionary(answer.refused.map { ($0, 1) }, uniquingKeysWith: +).sorted(by: { $0.key < $1.key }) {
                endpoint.recordPushRefused(project.id, reason: reason, records: count)
            }
            // The owner's own device holds these set aside (its origin refused them after making it a
            // viewer): set aside here too, so both show the origin's document (closing note s13).
            if answer.refused.contains(SyncErrorCode.recordSetAside.rawValue),
               let aside = try? endpoint.setAsideAsOwnDevice(project, peerHeld: peerHeld) {
                entry.setAside = aside
                return
            }
        }
    }

    /// A peer's refusal of a push that concerns the project alone: the exchange goes on with the others.
    static let refusesTheProject: Set<SyncExchangeErrorCode> = [.viewerCannotWrite, .notShared, .privilegedRefused, .quotaExceeded]

    /// Failures of one project's step, here or in the peer's answer to it, that leave that project
    /// for this run and go on with the others: a record too large to travel (one stored before
    /// records were bounded to what a message carries), the egress funnel keeping the project's
    /// records here, the peer having more than the rounds allow, a request refused as malformed.
    /// The channel failing, the deadline, a pause: those end the run.
    public static let skipsTheProject: Set<SyncExchangeErrorCode> = [.recordTooLarge, .egressRefused, .tooManyRounds, .malformedMessage, .inMemoryMode,
                                                                      .quotaExceeded]

    static func union(_ a: [DeviceID: UInt64], _ b: [DeviceID: UInt64]) -> [DeviceID: UInt64] {
        a.merging(b) { max($0, $1) }
    }
}
