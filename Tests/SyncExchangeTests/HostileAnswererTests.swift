import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// The asking side of the exchange against an answerer that lies (SECURITY.md §19.9): what the
/// answering device may do with a project this vault holds is decided here, by this vault's trust
/// levels and share grants, never by the access its offer claims. Each refusal is recorded with its
/// reason, and nothing is taken from or sent to a device this vault's rule does not allow.
@Suite(.serialized) struct HostileAnswererTests {
    typealias F = SyncExchangeFixture

    static func nodeCount(_ vault: TestVault, _ project: WritingProject) throws -> Int {
        try F.store(vault, project) { try $0.nodes(in: project.id).count }
    }

    static func states(_ vault: TestVault) throws -> [ProjectID: SyncState] {
        Dictionary(uniqueKeysWithValues: try SyncStatus.projects(vault.unlocked).map { ($0.project, $0.state) })
    }

    /// The answerer's record after `held` of its records, taken by this vault as the answerer's
    /// records are (the way a device that still writes the project could relay it).
    static func relay(_ record: ChangeRecord, to f: F, _ project: WritingProject) throws -> [String] {
        try SyncEndpoint(vault: f.laptop.unlocked, peer: f.deskKeys.profile).receive([record.encoded], for: project, coordinator: nil)
            .refused.map(\.error.code.rawValue)
    }

    /// A laptop holding a privileged project ("Patient A", one document) and an ordinary one ("Memo",
    /// one document), paired with a forging answerer that offers both as the owner's own (`.mine`) and
    /// has planted one record of its own in each; the laptop trusts the answerer's device as `trust`.
    static func offeringTwoProjectsAsMine(laptopTrusts trust: DeviceTrust)
        throws -> (f: F, answerer: ForgingAnswerer, privileged: WritingProject, ordinary: WritingProject) {
        let answerer = ForgingAnswerer()
        let f = try F(laptopTrusts: trust, deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        let privileged = try F.project(f.laptop, "Patient A", register: .healthcare)
        let ordinary = try F.project(f.laptop, "Memo")
        _ = try F.document(f.laptop, in: privileged, "Visit", ["history"])
        _ = try F.document(f.laptop, in: ordinary, "Draft", ["words"])
        for project in [privileged, ordinary] {
            answerer.offer(project, access: .mine)
            try answerer.plant(in: project.id)
        }
        return (f, answerer, privileged, ordinary)
    }

    /// A pulled record the writing store refuses to write (a document under a document) leaves its
    /// project local-only for the run, with the store's code, recorded and none of the batch kept;
    /// the other project's record is taken in the same run (SECURITY.md §19.9, "Records the writing
    /// store refuses": the pull side; the push side is HostileRecordTests').
    @Test func aPulledRecordTheWritingStoreRefusesLeavesItsProjectLocalOnlyAndTheOtherSyncs() throws {
        let answerer = ForgingAnswerer()
        let f = try F(deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        let refusing = try F.project(f.laptop, "Old case"), taking = try F.project(f.laptop, "Memo")
        let document = try F.document(f.laptop, in: refusing, "File", ["closed"])
        _ = try F.document(f.laptop, in: taking, "Draft", ["words"])
        for project in [refusing, taking] { answerer.offer(project, access: .mine) }
        answerer.keep(try ChangeRecord.make(project: refusing.id, author: answerer.author, counter: 1, lamport: 1, parents: [],
                                            operations: [.node(try NodeID.random(), .present(kind: .scene, parent: document, orderKey: "1k", title: "Planted"))]))
        try answerer.plant(in: taking.id)
        let report = try f.syncLaptop()
        let skipped = try #require(report.projects.first { $0.project == refusing.id })
        #expect(skipped.localOnly?.contains("wrongNodeKind") == true && skipped.refused == ["writingRefused"], "\(report)")
        #expect(F.details(f.laptop, .syncRecordRefused, "writing") == ["wrongNodeKind"])
        #expect(try Self.nodeCount(f.laptop, refusing) == 1 && Self.nodeCount(f.laptop, taking) == 2)
    }

    @Test func someoneElsesDeviceOfferingThisVaultsProjectsAsMineWritesNothingIntoThemAndIsSentNothing() throws {
        let (f, answerer, privileged, ordinary) = try Self.offeringTwoProjectsAsMine(laptopTrusts: .other)
        let report = try f.syncLaptop()
        #expect(report.received == 0 && report.sent == 0, "\(report)")
        #expect(Set(report.projects.flatMap(\.refused)) == ["privilegedRefused", "notShared"])
        #expect(answerer.pulled.isEmpty && answerer.pushed.isEmpty)
        #expect(Set(F.details(f.laptop, .syncExchangeRefused, "reason")) == ["privilegedRefused", "notShared"])
        #expect(try Self.nodeCount(f.laptop, privileged) == 1 && Self.nodeCount(f.laptop, ordinary) == 1)
        #expect(!F.details(f.laptop, .syncRosterAdd, "device").contains(answerer.keys.profile.deviceID.hex))
        #expect(!F.details(f.laptop, .egressDecision, "destination").contains("device:\(answerer.keys.profile.deviceID.hex)"))
    }

    /// Review 17 s9, N-s9-10: a colleague's modified client offering made-up projects by the
    /// thousand grows this vault's kept refusals by at most a bound (32 per device), while the run still names each.
    @Test func madeUpOffersByThePageKeepAtMostTheBoundOfRefusalsHere() throws {
        let answerer = ForgingAnswerer()
        let f = try F(laptopTrusts: .other, deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        // A whole page of them (64; a modified client may send 1,024 pages an exchange).
        for index in 0..<64 { answerer.offer(try ProjectID.random(), named: "Made up \(index)") }
        let report = try f.syncLaptop()
        #expect(report.projects.filter { $0.access == "none" }.count == 64, "the run names every refused offer")
        let kept = try SyncStatus.refusals(f.laptop.unlocked)
        #expect(kept.count == SyncEndpoint.maximumRefusedOffersKept, "\(kept.count) refusals kept")
        // Another exchange with 64 other made-up projects adds none; the kept ones stay.
        answerer.log.withLock { $0.offers.removeAll() }
        for index in 0..<64 { answerer.offer(try ProjectID.random(), named: "Made up again \(index)") }
        #expect(try f.syncLaptop().projects.filter { $0.access == "none" }.count == 64)
        #expect(try Set(SyncStatus.refusals(f.laptop.unlocked).map(\.project)) == Set(kept.map(\.project)))
    }

    @Test func aViewerAnsweringHasItsRecordsRefusedAndIsSentTheOwnersRecords() throws {
        let answerer = ForgingAnswerer()
        let f = try F(deskTrusts: .other, laptopTrusts: .other, deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        let project = try F.project(f.laptop, "Brief")
        _ = try F.document(f.laptop, in: project, "Draft", ["first"])
        try SyncControl.shared(project.compartment, with: answerer.keys.profile.deviceID, role: .viewer, in: f.laptop.unlocked)
        // A viewer's side says `editor` (the project came from this vault): this vault knows better.
        answerer.offer(project, access: .editor)
        try answerer.plant(in: project.id)
        let report = try f.syncLaptop()
        let entry = try #require(report.projects.first)
        #expect(entry.access == "viewer" && entry.received == 0 && entry.refused == ["viewerCannotWrite"], "\(report)")
        #expect(try Self.nodeCount(f.laptop, project) == 1)
        #expect(F.details(f.laptop, .syncExchangeRefused, "reason") == ["viewerCannotWrite"])
        // What the viewer may read, it is sent.
        #expect(answerer.pushed[project.id] == 1)
    }

    @Test func aRevokedEditorAnsweringIsRefusedAndItsLaterRecordsNeverVerifyWhileItsEarlierOnesStillDo() throws {
        let answerer = ForgingAnswerer()
        let f = try F(deskTrusts: .other, laptopTrusts: .other, deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        let project = try F.project(f.laptop, "Brief")
        _ = try F.document(f.laptop, in: project, "Draft", ["first"])
        try SyncControl.shared(project.compartment, with: answerer.keys.profile.deviceID, role: .editor, in: f.laptop.unlocked)
        answerer.offer(project, access: .editor)
        try answerer.plant(in: project.id)
        #expect(try f.syncLaptop().received == 1)
        #expect(try Self.nodeCount(f.laptop, project) == 2)
        let pulls = answerer.pulled.count, pushes = answerer.pushed
        try SyncControl.revoked(project.compartment, from: answerer.keys.profile.deviceID, in: f.laptop.unlocked)
        let later = try answerer.plant(in: project.id)
        let report = try f.syncLaptop()
        #expect(report.received == 0 && report.sent == 0 && report.projects.map(\.refused) == [["notShared"]], "\(report)")
        #expect(answerer.pulled.count == pulls && answerer.pushed == pushes)
        #expect(F.details(f.laptop, .syncExchangeRefused, "reason") == ["notShared"])
        #expect(try Self.nodeCount(f.laptop, project) == 2)
        // Its record from before the revoke still verifies; one after it, however it comes, does not.
        #expect(try Self.states(f.laptop)[project.id] == .ready(records: 2))
        #expect(try Self.relay(later, to: f, project) == ["accessEnded"])
        #expect(F.details(f.laptop, .syncRecordRefused, "reason") == ["accessEnded"])
        #expect(try Self.nodeCount(f.laptop, project) == 2)
    }

    @Test func aDeviceNoLongerTheOwnersOwnIsRefusedWhenThisDeviceAsksAndSentNothing() throws {
        let (f, answerer, privileged, ordinary) = try Self.offeringTwoProjectsAsMine(laptopTrusts: .mine)
        let first = try f.syncLaptop()
        #expect(first.received == 2 && first.sent == 2, "\(first)")
        try f.laptop.unlocked.setTrust(.other, of: answerer.keys.profile.deviceID, atPairing: false)
        let later = try [privileged, ordinary].map { try answerer.plant(in: $0.id) }
        let pulls = answerer.pulled.count, pushes = answerer.pushed
        let report = try f.syncLaptop()
        #expect(report.received == 0 && report.sent == 0, "\(report)")
        #expect(Set(report.projects.flatMap(\.refused)) == ["privilegedRefused", "notShared"])
        #expect(answerer.pulled.count == pulls && answerer.pushed == pushes)
        #expect(Set(F.details(f.laptop, .syncExchangeRefused, "reason")) == ["privilegedRefused", "notShared"])
        #expect(try Self.nodeCount(f.laptop, privileged) == 2 && Self.nodeCount(f.laptop, ordinary) == 2)
        // What it wrote while it was the owner's own still verifies; nothing after.
        let states = try Self.states(f.laptop)
        #expect(states[privileged.id] == .ready(records: 2) && states[ordinary.id] == .ready(records: 2))
        #expect(try Self.relay(later[1], to: f, ordinary) == ["accessEnded"])
    }

    @Test func anOfferedNameTheWritingStoreWouldRefuseRefusesThatOfferOnlyRecorded() throws {
        let answerer = ForgingAnswerer()
        let f = try F(deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        let spaced = try ProjectID.random(), fine = try ProjectID.random()
        answerer.offer(spaced, named: "Brief ")
        answerer.offer(fine, named: "Brief")
        let report = try f.syncLaptop()
        // The refused offer is in the run's report with its reason; the other synced.
        #expect(report.projects.first { $0.project == spaced }?.refused == ["malformedMessage"], "\(report)")
        #expect(report.projects.first { $0.project == fine }?.refused == [], "\(report)")
        #expect(try !F.hasProject(f.laptop, spaced) && F.hasProject(f.laptop, fine))
        #expect(F.details(f.laptop, .syncExchangeRefused, "reason") == ["malformedMessage"])
    }
}
