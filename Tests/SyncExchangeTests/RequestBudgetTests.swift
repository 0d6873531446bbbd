import CryptoVault
@testable import Sync
import Synchronization
import Testing
import TestSupport
import Writing

/// A paired device other than the owner's own gets a bounded number of answers carrying records or
/// offers in a window (SECURITY.md §19.9, "Answers are bounded"; review 17 s8, F7): each costs this
/// vault entries (the names or records it opens, an `egress.decision`), so a device looping
/// `sync.projects` or `sync.pull` must not grow the audit log at its request rate. The budget is asked
/// before anything is opened; only answers that carry something new count toward the bound of new
/// answers; an honest colleague co-editing live is never refused.
@Suite struct RequestBudgetTests {
    typealias F = SyncExchangeFixture

    /// The exchange over no channel: each request goes to `responder` as `asker`'s.
    final class ResponderTransport: SyncTransport {
        let responder: SyncResponder
        let asker: DeviceProfile
        let peer: DeviceProfile

        init(_ responder: SyncResponder, asker: DeviceProfile, peer: DeviceProfile) {
            self.responder = responder
            self.asker = asker
            self.peer = peer
        }

        func request(_ kind: String, body: SyncOutgoing) throws -> [UInt8] {
            try responder.respond(to: kind, body: body.bytes, from: asker).bytes
        }
    }

    static func entries(_ vault: TestVault) -> [VaultEvent] { vault.recording.events.withLock { $0 } }

    /// Whether `request` was answered; a refusal other than `tooManyRequests` fails the test.
    static func answered(_ request: () throws -> SyncOutgoing) throws -> Bool {
        do {
            _ = try request()
            return true
        } catch let error as SyncExchangeError where error.code == .tooManyRequests {
            #expect(error.message.contains("refused until that time has passed"), "\(error)")
            return false
        }
    }

    static func askProjects(_ responder: SyncResponder, from device: DeviceProfile) throws -> Bool {
        try answered { try responder.respond(to: SyncWire.projectsKind, body: SyncProjectsRequest(after: nil).serialized(), from: device) }
    }

    @Test func anHourOfLiveCoEditingWithASaveEveryTwoSecondsIsNeverRefused() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Shared memo")
        let document = try F.document(f.desk, in: project, "Memo", ["Owner's paragraph.", "Colleague's paragraph."])
        try F.share(project, of: f.desk, with: f.laptop, role: .editor)
        let time = Mutex(1_000.0)
        let budget = SyncRequestBudget(clock: .forwardOnly { time.withLock { $0 } })
        let transport = ResponderTransport(SyncResponder(vault: f.desk.unlocked, requests: budget), asker: f.laptopKeys.profile, peer: f.deskKeys.profile)
        func colleagueSyncs() throws -> SyncRunReport { try SyncInitiator(vault: f.laptop.unlocked, transport: transport, coordinator: nil).run() }
        #expect(try colleagueSyncs().received == 1)
        let colleagues = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }

        // An hour: the colleague saves every 2 s and its daemon syncs after each save; the owner
        // types in the same memo and saves as often. Each exchange is a page of offers (the same
        // every time) and a batch with the owner's new record.
        var refused: [String] = []
        for save in 1...1_800 where refused.isEmpty {
            time.withLock { $0 += 2 }
            try F.edit(f.desk, project, document, block: 0, to: "Owner's paragraph, save \(save).")
            try F.edit(f.laptop, colleagues, document, block: 1, to: "Colleague's paragraph, save \(save).")
            let report = try colleagueSyncs()
            if report.projects.map(\.project) != [project.id] || report.projects.contains(where: { $0.notSynced }) || report.sent != 1 || report.received != 1 {
                refused.append("save \(save): \(report)")
            }
        }
        #expect(refused.isEmpty, "\(refused)")
        #expect(F.details(f.desk, .syncExchangeRefused, "reason").isEmpty)
        let both = ["Owner's paragraph, save 1800.", "Colleague's paragraph, save 1800."]
        #expect(try F.texts(f.desk, project.id, document) == both)
        #expect(try F.texts(f.laptop, project.id, document) == both)
    }

    @Test func aViewerLoopingTheSamePageIsRefusedUnreadPastTheBound() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Launch plan")
        let document = try F.document(f.desk, in: project, "Plan", ["We launch in May."])
        try F.share(project, of: f.desk, with: f.laptop, role: .viewer)
        let time = Mutex(1_000.0)
        let budget = SyncRequestBudget(clock: .forwardOnly { time.withLock { $0 } })
        let responder = SyncResponder(vault: f.desk.unlocked, requests: budget)
        let laptop = f.laptopKeys.profile
        let before = Self.entries(f.desk).count
        var answered = 0
        for _ in 0..<10_000 where try Self.askProjects(responder, from: laptop) { answered += 1 }
        #expect(answered == SyncRequestBudget.defaultBound, "\(answered)")
        let added = Self.entries(f.desk)[before...]
        // Each answer opened the project's name once and was one egress decision; a refused request opened nothing.
        #expect(added.filter { $0.action == .recordOpen }.count == answered)
        #expect(added.filter { $0.action == .egressDecision }.count == answered)
        #expect(added.count <= 2 * answered + 2, "not one entry or more per request: \(added.count)")
        #expect(F.details(f.desk, .syncExchangeRefused, "reason") == ["tooManyRequests"])
        #expect(F.details(f.desk, .syncExchangeRefused, "bound") == [String(SyncRequestBudget.defaultBound)])
        #expect(F.details(f.desk, .syncExchangeRefused, "counted") == ["answers"])

        // After the window it is answered again; and an honest sync (the daemon's own budget) works.
        time.withLock { $0 += SyncRequestBudget.defaultSeconds + 1 }
        #expect(try Self.askProjects(responder, from: laptop))
        let report = try f.syncLaptop()
        #expect(report.projects.count == 1 && report.projects.allSatisfy { !$0.notSynced }, "\(report)")
        #expect(try F.texts(f.laptop, project.id, document) == ["We launch in May."])
    }

    @Test func aFloodOfDistinctPullsIsRefusedPastTheBoundOfNewAnswers() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Launch plan")
        let document = try F.document(f.desk, in: project, "Plan", ["Draft 0"])
        try F.share(project, of: f.desk, with: f.laptop, role: .viewer)
        // Twelve records of the desk's: each pull from a vector short of a later one is another answer.
        for draft in 1...12 {
            try F.edit(f.desk, project, document, block: 0, to: "Draft \(draft)")
            try f.syncLaptop()
        }
        let desk = f.deskKeys.profile.deviceID
        let budget = SyncRequestBudget(newBound: 8)
        let responder = SyncResponder(vault: f.desk.unlocked, requests: budget)
        func pull(from counter: UInt64) throws -> Bool {
            try Self.answered {
                try responder.respond(to: SyncWire.pullKind, body: SyncPullRequest(project: project.id, held: [desk: counter]).serialized(),
                                      from: f.laptopKeys.profile)
            }
        }
        let given = try (0..<12).map { try pull(from: UInt64($0)) }
        #expect(given == Array(repeating: true, count: 8) + Array(repeating: false, count: 4), "\(given)")
        #expect(F.details(f.desk, .syncExchangeRefused, "reason") == ["tooManyRequests"])
        #expect(F.details(f.desk, .syncExchangeRefused, "counted") == ["new answers"])
        #expect(F.details(f.desk, .syncExchangeRefused, "bound") == ["8"])
        // The same answer again is no new content: still given.
        #expect(try pull(from: 0))
    }

    @Test func anAnswerThatCarriesNothingIsNotCounted() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let responder = SyncResponder(vault: f.desk.unlocked, requests: SyncRequestBudget(bound: 2, newBound: 2))
        // Nothing is shared with the laptop: every answer is empty, costs no entry, and is given.
        for _ in 0..<10 { #expect(try Self.askProjects(responder, from: f.laptopKeys.profile)) }
    }

    @Test func theOwnersOwnDeviceIsNotBounded() throws {
        let f = try F()
        _ = try F.project(f.desk, "Ours")
        let responder = SyncResponder(vault: f.desk.unlocked, requests: SyncRequestBudget(bound: 3, newBound: 3))
        for _ in 0..<10 { #expect(try Self.askProjects(responder, from: f.laptopKeys.profile)) }
    }
}
