import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// Damage to the exchange's own tables (SECURITY.md §19.9, "Damaged exchange state"), made as an
/// attacker editing the database file would: the vault works local-only and says why (sync refused
/// on both sides with `damagedSyncState` naming the table, every project shown local-only), its
/// documents are read and written as ever, and mending keeps the whole rows, drops the others on the
/// safe side (a damaged device row comes back paused), is recorded, and sync goes on.
@Suite(.serialized) struct DamagedExchangeStateTests {
    typealias F = SyncExchangeFixture

    enum Damage: String, CaseIterable, Sendable {
        // Damage no one project or device holds (one that does: `ScopedExchangeDamageTests`).
        case shareDeviceAltered, rosterProjectAltered, peerDeviceGarbage, vectorProjectGarbage, forksTableDropped, skipsColumnsAltered

        var table: String {
            switch self {
            case .shareDeviceAltered: "sync_shares"
            case .rosterProjectAltered: "sync_roster"
            case .peerDeviceGarbage: "sync_peers"
            case .vectorProjectGarbage: "sync_peer_vectors"
            case .forksTableDropped: "sync_forks"
            case .skipsColumnsAltered: "sync_project_skips"
            }
        }

        var sql: String {
            switch self {
            case .shareDeviceAltered: "PRAGMA ignore_check_constraints = ON; UPDATE sync_shares SET role = 'admin', device_id = x'00'"
            case .rosterProjectAltered: "PRAGMA ignore_check_constraints = ON; UPDATE sync_roster SET signing_key = randomblob(32), project_id = 'p' WHERE noise_key IS NOT NULL"
            case .peerDeviceGarbage: "PRAGMA ignore_check_constraints = ON; UPDATE sync_peers SET paused = 'no', device_id = 'd'"
            case .vectorProjectGarbage: "PRAGMA ignore_check_constraints = ON; UPDATE sync_peer_vectors SET vector = x'ffff01', project_id = x'01'"
            case .forksTableDropped: "DROP TABLE sync_forks"
            case .skipsColumnsAltered: "ALTER TABLE sync_project_skips ADD COLUMN note TEXT"
            }
        }
    }

    /// The desk's project synced to the laptop once (so the laptop's tables hold a peer row, a
    /// vector and a roster), and shared from the laptop with the desk (a share row).
    static func synced() throws -> (F, WritingProject, NodeID) {
        let f = try F()
        let project = try F.project(f.desk, "Case file")
        let document = try F.document(f.desk, in: project, "Notes", ["first"])
        try f.syncLaptop()
        let here = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try SyncControl.shared(here.compartment, with: f.deskKeys.profile.deviceID, role: .viewer, in: f.laptop.unlocked)
        return (f, project, document)
    }

    /// `vaultctl repair` without --from, the origins read from what the vault recorded (the same
    /// entries its audit log holds; a test vault's journal is the recording).
    static func mend(_ vault: TestVault) throws -> SyncExchangeMend {
        let history = SyncOriginHistory(events: vault.recording.events.withLock { $0 })
        return try vault.unlocked.transaction { tx in try SyncExchangeHealth.mend(in: tx, origins: history) }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedExchangeTableMakesTheVaultLocalOnlySayingWhyAndMendingItLetsSyncGoOn(_ damage: Damage) throws {
        let (f, project, document) = try Self.synced()
        try f.laptop.tamper(damage.sql)
        try F.edit(f.desk, project, document, block: 0, to: "edited at the desk")

        // Local-only, saying why: the table named, on every sync and in the status.
        let problem = try #require(try SyncStatus.exchangeProblem(f.laptop.unlocked), "\(damage) was not seen")
        #expect(problem.contains(damage.table), "\(problem)")
        do {
            try f.syncLaptop()
            Issue.record("\(damage): the laptop synced over damaged exchange tables")
        } catch let error as SyncError {
            #expect(error.code == .damagedSyncState && error.message.contains(damage.table) && error.message.contains("vaultctl repair"), "\(error)")
        }
        let states = try SyncStatus.projects(f.laptop.unlocked)
        #expect(states.count == 1 && states.allSatisfy {
            if case .localOnly(let reason) = $0.state { reason.contains("sync state is damaged") && reason.contains(damage.table) } else { false }
        }, "\(states)")
        // The documents are read and written as ever; nothing came from the desk.
        #expect(try F.texts(f.laptop, project.id, document) == ["first"])
        try F.edit(f.laptop, try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }, document, block: 0, to: "typed here meanwhile")

        // Mended: recorded with what it did, whole again.
        let mend = try Self.mend(f.laptop)
        #expect(mend.remade.contains(damage.table) || (mend.dropped[damage.table] ?? 0) >= 1, "\(mend)")
        #expect(F.details(f.laptop, .syncExchangeMended, "dropped").count == 1)
        #expect(try SyncStatus.exchangeProblem(f.laptop.unlocked) == nil)
        #expect(try Self.mend(f.laptop) == SyncExchangeMend(), "a whole state needs no mending")
        // (A damaged device row whose device id is whole comes back paused: `ScopedExchangeDamageTests`.)
        let report = try f.syncLaptop()
        #expect(report.projects.allSatisfy { $0.localOnly == nil && $0.skipped == nil }, "\(report)")
        let texts = try F.texts(f.laptop, project.id, document)
        #expect(texts.count == 1 && (texts[0].contains("desk") || texts[0].contains("meanwhile")), "\(texts)")
    }

    @Test func theAnswerersDamagedTablesRefuseEveryRequestWithTheReason() throws {
        let (f, _, _) = try Self.synced()
        try f.desk.tamper("DROP TABLE sync_roster")
        #expect(throws: SyncPeerFailure(.damagedSyncState, "")) { try f.syncLaptop() }
        #expect(F.details(f.desk, .syncExchangeRefused, "reason").contains("damagedSyncState"))
        // The asker kept the peer's failure as the run's error.
        #expect(try f.laptop.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).peer(f.deskKeys.profile.deviceID)?.lastError }
                == "peer-damagedSyncState")
    }

    @Test func aDeletedShareRowIsNoDamageAndGrantsNothing() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Brief")
        _ = try F.document(f.desk, in: project, "Draft", ["words"])
        try F.share(project, of: f.desk, with: f.laptop, role: .editor)
        try f.syncLaptop()
        #expect(try F.hasProject(f.laptop, project.id))
        // The desk's share row deleted: nothing says it was there, and it now grants nothing.
        try f.desk.tamper("DELETE FROM sync_shares")
        #expect(try SyncStatus.exchangeProblem(f.desk.unlocked) == nil)
        let report = try f.syncLaptop()
        #expect(report.projects.isEmpty && report.received == 0 && report.sent == 0, "\(report)")
    }

    // MARK: Attack review s6, P1: the health rules are no stricter than their writers

    @Test func aPullAnswerNamingAThousandMadeUpDevicesIsNoDamageAndTheNextSyncRuns() throws {
        let answerer = ForgingAnswerer()
        let f = try F(deskTrusts: .other, laptopTrusts: .other, deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        let project = try F.project(f.laptop, "Brief")
        _ = try F.document(f.laptop, in: project, "Draft", ["first"])
        try SyncControl.shared(project.compartment, with: answerer.keys.profile.deviceID, role: .editor, in: f.laptop.unlocked)
        answerer.offer(project, access: .editor)
        try answerer.plant(in: project.id)
        // 1,023 made-up devices and its own: the most a vector holds, a valid answer. With this
        // vault's own device the union would be 1,025.
        answerer.claimHeld(Dictionary(uniqueKeysWithValues: try (0..<(SyncWire.maximumDevices - 1)).map { _ in (try DeviceID.random(), UInt64(1)) }))
        let first = try f.syncLaptop()
        #expect(first.received == 1 && first.sent >= 1 && first.projects.allSatisfy { $0.skipped == nil && $0.localOnly == nil }, "\(first)")

        #expect(try SyncStatus.exchangeProblem(f.laptop.unlocked) == nil)
        let kept = try f.laptop.unlocked.transaction { tx in
            try SyncExchangeStore(database: tx.database).peerVector(answerer.keys.profile.deviceID, project: project.id)
        }
        #expect(Set(kept.keys) == [f.laptopKeys.profile.deviceID, answerer.keys.profile.deviceID], "kept \(kept.count) devices")
        let second = try f.syncLaptop()
        #expect(second.projects.allSatisfy { $0.skipped == nil && $0.localOnly == nil }, "\(second)")
        #expect(try SyncStatus.projects(f.laptop.unlocked).allSatisfy { if case .ready = $0.state { true } else { false } })
    }

    @Test func theExchangesWritersKeepEveryRowWholeWhateverTheyAreGiven() throws {
        let (f, project, _) = try Self.synced()
        let desk = f.deskKeys.profile.deviceID
        let tooMany = Dictionary(uniqueKeysWithValues: try (0...SyncWire.maximumDevices).map { _ in (try DeviceID.random(), UInt64(1)) })
        try f.laptop.unlocked.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            try store.setPeerVector(desk, project: project.id, tooMany)
            #expect(try store.peerVector(desk, project: project.id).isEmpty, "a vector past the bound is not kept")
            try store.setPeerVector(desk, project: project.id, [desk: UInt64.max, f.laptopKeys.profile.deviceID: 3])
            #expect(try store.peerVector(desk, project: project.id) == [f.laptopKeys.profile.deviceID: 3])
            try store.recordAttempt(desk, at: 1, error: "\u{0}peer-" + String(repeating: "é", count: 2_000), sent: 0, received: 0)
            try store.setSkipped(project.id, by: desk, reason: "", at: 1)
        }
        #expect(try SyncStatus.exchangeProblem(f.laptop.unlocked) == nil)
        let error = try #require(try f.laptop.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).peer(desk)?.lastError })
        #expect(error.hasPrefix(" peer-é") && error.utf8.count <= 1024)
    }

    // MARK: P2: an origin is put back, never dropped

    /// Attack review s7, P2's gap: the origin row lost while the writing store is damaged too (its
    /// projects table gone), so the mend cannot tell which projects are ordinary or view-only and
    /// puts no origin back. It says so and why (in the mend, in its entry), instead of passing over
    /// it: before, the mend read as whole, origins 0, with nothing to tell they were lost.
    @Test func aLostOriginTheMendCannotPutBackIsSaidWithItsReason() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Brief")
        _ = try F.document(f.desk, in: project, "Draft", ["words"])
        try F.share(project, of: f.desk, with: f.laptop, role: .viewer)
        try f.syncLaptop()

        try f.laptop.tamper("DROP TABLE sync_origins; DROP TABLE writing_projects")
        let mend = try Self.mend(f.laptop)
        #expect(mend.remade == ["sync_origins"] && mend.originsRestored.isEmpty, "\(mend)")
        let why = try #require(mend.originsNotRestored, "\(mend)")
        #expect(why.contains("the writing store cannot list its projects") && why.contains("1 project(s)")
                && why.contains("repair --from"), "\(why)")
        #expect(F.details(f.laptop, .syncExchangeMended, "origins-not-restored") == ["1"])
        #expect(F.details(f.laptop, .syncExchangeMended, "origins") == ["0"])
    }

    @Test(arguments: ["PRAGMA ignore_check_constraints = ON; UPDATE sync_origins SET access = 'owner'", "DROP TABLE sync_origins"])
    func aLostOriginIsPutBackFromTheAuditLogSoAColleaguesProjectStaysTheirs(_ damage: String) throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Brief")
        let document = try F.document(f.desk, in: project, "Draft", ["words"])
        try F.share(project, of: f.desk, with: f.laptop, role: .viewer)
        try f.syncLaptop()
        let held = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        #expect(held.isViewOnly)

        try f.laptop.tamper(damage)
        #expect(try f.laptop.unlocked.transaction { tx in SyncExchangeHealth.damage(in: tx).reason(for: project.id) ?? SyncExchangeHealth.problem(in: tx) }?
                .contains("sync_origins") == true)
        let mend = try Self.mend(f.laptop)
        #expect(mend.originsRestored == [project.id], "\(mend)")
        #expect(F.details(f.laptop, .syncExchangeMended, "origins") == ["1"])
        let origin = try f.laptop.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).origin(of: project.id) }
        #expect(origin?.device == f.deskKeys.profile.deviceID && origin?.access == .viewer, "\(String(describing: origin))")

        // Still the colleague's: the owner cannot share it on, it stays view-only, and it syncs from the desk.
        let stranger = try DeviceID.random()
        #expect(throws: SyncExchangeError(.notOwner, "")) {
            try SyncControl.shared(held.compartment, with: stranger, role: .editor, in: f.laptop.unlocked)
        }
        #expect(try f.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }.isViewOnly)
        try F.edit(f.desk, project, document, block: 0, to: "edited at the desk")
        let report = try f.syncLaptop()
        #expect(report.received >= 1 && report.projects.allSatisfy { $0.skipped == nil && $0.localOnly == nil }, "\(report)")
        #expect(try F.texts(f.laptop, project.id, document) == ["edited at the desk"])
    }

    @Test func theOriginHistoryIsTheLastEntryOfEachProject() throws {
        let (a, b, c) = (try ProjectID.random(), try ProjectID.random(), try ProjectID.random())
        let (s, t, own) = (try DeviceID.random(), try DeviceID.random(), try DeviceID.random())
        let history = SyncOriginHistory(events: [
            VaultEvent(.syncProjectAdded, subject: a, details: [.init("peer", s.hex), .init("access", "viewer")]),
            VaultEvent(.syncProjectAdded, subject: b, details: [.init("peer", own.hex), .init("access", "editor"), .init("origin", t.hex)]),
            VaultEvent(.syncProjectAdded, subject: c, details: [.init("peer", own.hex), .init("access", "mine")]),
            VaultEvent(.syncProjectOriginLearned, subject: c, details: [.init("peer", own.hex), .init("origin", s.hex), .init("access", "editor")]),
            VaultEvent(.syncShare, subject: a, details: [.init("peer", t.hex), .init("role", "editor")]),
        ])
        #expect(history.origins == [a: s, b: t, c: s])
        #expect(SyncOriginHistory(events: [VaultEvent(.syncProjectAdded, subject: a, details: [.init("peer", own.hex), .init("access", "mine")])]).origins.isEmpty)
    }

    // MARK: P3: the answerer checks its tables once per exchange

    @Test func theAnswererChecksItsTablesAtEachExchangeNotAtEachRequest() throws {
        let (f, project, _) = try Self.synced()
        let watch = SyncExchangeHealthWatch()
        let responder = SyncResponder(vault: f.desk.unlocked, health: watch)
        let laptop = f.laptopKeys.profile
        let pull = SyncPullRequest(project: project.id, held: [:]).serialized()
        _ = try responder.respond(to: SyncWire.projectsKind, body: [SyncWire.version], from: laptop)
        for _ in 0..<100 { _ = try responder.respond(to: SyncWire.pullKind, body: pull, from: laptop) }
        #expect(watch.checks == 1)

        // Damage is met at the next exchange's start, refused with the reason, and the pulls after
        // it are refused on that verdict without reading the tables again.
        try f.desk.tamper("DROP TABLE sync_forks")
        #expect(throws: SyncError(.damagedSyncState, "")) { try responder.respond(to: SyncWire.projectsKind, body: [SyncWire.version], from: laptop) }
        #expect(throws: SyncError(.damagedSyncState, "")) { try responder.respond(to: SyncWire.pullKind, body: pull, from: laptop) }
        #expect(watch.checks == 2)
        #expect(F.details(f.desk, .syncExchangeRefused, "reason").filter { $0 == "damagedSyncState" }.count == 2)
    }
}
