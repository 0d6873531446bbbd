import CryptoVault
@testable import Sync
import Synchronization
import Testing
import TestSupport
import Writing

/// A device other than the owner's own adds at most its day's bound of records and bytes here, over
/// all the projects it writes (SECURITY.md §19.9, "Records are bounded per device"; review 17 s8, F13): past it, its
/// batch is refused whole before anything of it is stored (`quotaExceeded`, recorded within its
/// refusal budget, kept for `sync status`), the next day its records are taken again, and the
/// owner's own devices are never bounded.
@Suite struct DeviceQuotaTests {
    typealias F = SyncExchangeFixture

    /// `count` records the laptop signs for `project`, each making a document.
    static func records(_ f: F, _ project: WritingProject, _ count: Int) throws -> [[UInt8]] {
        var replica = SyncReplica(project: project.id, author: SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey),
                                  devices: [:])
        return try (0..<count).map { try replica.createDocument(titled: "Page \($0)").record.encoded }
    }

    static func push(_ records: ArraySlice<[UInt8]>, of project: WritingProject, to responder: SyncResponder, from f: F) throws -> SyncPushAnswer {
        let body = SyncPushRequest(project: project.id, records: Array(records)).serialized()
        return try SyncPushAnswer(parsing: try responder.respond(to: SyncWire.pushKind, body: body, from: f.laptopKeys.profile).bytes)
    }

    /// How many of the laptop's records the desk holds (its version vector, as a pull answers it).
    static func laptopRecords(on responder: SyncResponder, of project: WritingProject, _ f: F) throws -> UInt64 {
        let body = SyncPullRequest(project: project.id, held: [:]).serialized()
        let answer = try SyncPullAnswer(parsing: try responder.respond(to: SyncWire.pullKind, body: body, from: f.laptopKeys.profile).bytes)
        return answer.held[f.laptopKeys.profile.deviceID] ?? 0
    }

    @Test func aColleaguePushingPastItsDaysBoundIsRefusedBeforeAnythingIsStoredUntilTheNextDay() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Launch plan")
        try F.share(project, of: f.desk, with: f.laptop, role: .editor)
        let now = Mutex<Int64>(20_000 * 86_400 + 3_600)
        let responder = SyncResponder(vault: f.desk.unlocked, quota: SyncDeviceQuota(records: 5, bytes: 1 << 20, clock: VaultClock { now.withLock { $0 } }))
        let records = try Self.records(f, project, 9)
        #expect(try Self.push(records[0..<3], of: project, to: responder, from: f).stored == 3)

        // Three more would make six: refused whole, none of them stored, the reason recorded.
        #expect(throws: SyncExchangeError(.quotaExceeded, "")) { try Self.push(records[3..<6], of: project, to: responder, from: f) }
        #expect(try Self.laptopRecords(on: responder, of: project, f) == 3)
        #expect(F.details(f.desk, .syncExchangeRefused, "reason") == ["quotaExceeded"])
        #expect(F.details(f.desk, .syncExchangeRefused, "records") == ["3"])
        // `sync status` on the owner's device names the device, the project and the reason.
        let refusal = try #require(try SyncStatus.refusals(f.desk.unlocked).first)
        #expect(refusal.peer == f.laptopKeys.profile.deviceID && refusal.project == project.id && refusal.side == .here, "\(refusal)")
        #expect(refusal.reasons == ["quotaExceeded"] && refusal.records == 3, "\(refusal)")

        // Two more fit the day's bound; then none does.
        #expect(try Self.push(records[3..<5], of: project, to: responder, from: f).stored == 2)
        #expect(try SyncStatus.refusals(f.desk.unlocked).isEmpty, "taken again: no longer said refused")
        #expect(throws: SyncExchangeError(.quotaExceeded, "")) { try Self.push(records[5..<6], of: project, to: responder, from: f) }
        // The next day its records are taken again.
        now.withLock { $0 += 86_400 }
        #expect(try Self.push(records[5..<9], of: project, to: responder, from: f).stored == 4)
        #expect(try Self.laptopRecords(on: responder, of: project, f) == 9)
    }

    @Test func aColleaguePushingPastItsDaysBytesIsRefused() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Launch plan")
        try F.share(project, of: f.desk, with: f.laptop, role: .editor)
        let records = try Self.records(f, project, 3)
        let bytes = records[0].count + records[1].count + 2 * SyncDeviceQuota.recordOverhead
        let responder = SyncResponder(vault: f.desk.unlocked, quota: SyncDeviceQuota(records: 100, bytes: bytes))
        #expect(try Self.push(records[0..<2], of: project, to: responder, from: f).stored == 2)
        #expect(throws: SyncExchangeError(.quotaExceeded, "")) { try Self.push(records[2..<3], of: project, to: responder, from: f) }
        #expect(try Self.laptopRecords(on: responder, of: project, f) == 2)
    }

    /// The bound is the device's, over all the projects it writes here (review 17 s10 on F13): a
    /// colleague may make as many projects here as it shares, so a bound per project bounded nothing.
    @Test func theDaysBoundIsOverAllTheProjectsOfTheDevice() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let plan = try F.project(f.desk, "Launch plan")
        let notes = try F.project(f.desk, "Press notes")
        for project in [plan, notes] { try F.share(project, of: f.desk, with: f.laptop, role: .editor) }
        let responder = SyncResponder(vault: f.desk.unlocked, quota: SyncDeviceQuota(records: 5, bytes: 1 << 20))
        #expect(try Self.push(try Self.records(f, plan, 3)[...], of: plan, to: responder, from: f).stored == 3)
        // Three more to the other project would make six of the device's today: refused whole, none stored.
        let more = try Self.records(f, notes, 3)
        #expect(throws: SyncExchangeError(.quotaExceeded, "")) { try Self.push(more[0..<3], of: notes, to: responder, from: f) }
        #expect(try Self.laptopRecords(on: responder, of: notes, f) == 0)
        #expect(F.details(f.desk, .syncExchangeRefused, "reason") == ["quotaExceeded"])
        #expect(try Self.push(more[0..<2], of: notes, to: responder, from: f).stored == 2)
        #expect(try Self.laptopRecords(on: responder, of: notes, f) == 2)
    }

    /// Each record costs more than its bytes (its `sync.record-receive` entry, its row and sealed parts
    /// on every own device): it is charged `recordOverhead` besides them (review 17 s10 on F13).
    @Test func eachRecordIsChargedItsOverheadBesidesItsBytes() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Launch plan")
        try F.share(project, of: f.desk, with: f.laptop, role: .editor)
        let records = try Self.records(f, project, 3)
        try #require(records[2].count < SyncDeviceQuota.recordOverhead, "a small record: its bytes alone would fit")
        let bound = records[0].count + records[1].count + 2 * SyncDeviceQuota.recordOverhead
        let responder = SyncResponder(vault: f.desk.unlocked, quota: SyncDeviceQuota(records: 100, bytes: bound + SyncDeviceQuota.recordOverhead))
        #expect(try Self.push(records[0..<2], of: project, to: responder, from: f).stored == 2)
        // The third's bytes alone fit what is left (one overhead's worth); with its overhead they do not.
        #expect(throws: SyncExchangeError(.quotaExceeded, "")) { try Self.push(records[2..<3], of: project, to: responder, from: f) }
        #expect(try Self.laptopRecords(on: responder, of: project, f) == 2)
    }

    /// Two records the laptop signs for `project`: a document, then a paragraph of `letters` letters
    /// typed in it between two autosaves (what a colleague's history is made of).
    static func paragraphRecords(_ f: F, _ project: WritingProject, letters: Int) throws -> [[UInt8]] {
        var replica = SyncReplica(project: project.id, author: SyncAuthor(device: f.laptopKeys.profile.deviceID, key: f.laptopKeys.signingKey),
                                  devices: [:])
        let (document, made) = try replica.createDocument(titled: "Chapter 1")
        let text = String(String(repeating: "She wrote on through the night. ", count: letters / 32 + 1).prefix(letters))
        let typed = try #require(try replica.edit(document, to: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: text)])))
        return [made.encoded, typed.encoded]
    }

    /// The day's bound leaves room for a colleague's existing project at its first sync (review 17
    /// s11 on d8d48ef): months of autosaved work, 50,000 records of a paragraph each, arrive within
    /// one day, the colleague's writing in another shared project that day counted too. (At 20,000
    /// records a day such a project reached the owner over weeks, an old state shown meanwhile.)
    @Test func aColleaguesProjectOfFiftyThousandRecordsArrivesWithinOneDay() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let book = try F.project(f.desk, "Their book")
        let notes = try F.project(f.desk, "Press notes")
        for project in [book, notes] { try F.share(project, of: f.desk, with: f.laptop, role: .editor) }
        let quota = SyncDeviceQuota()
        let responder = SyncResponder(vault: f.desk.unlocked, quota: quota)
        let records = try Self.paragraphRecords(f, book, letters: 1_000)
        let each = SyncDeviceQuota.charged([records[1]])
        try #require(each > 2_000, "a paragraph's record, charged its overhead: \(each)")
        // The history's first 49,000 records arrived earlier today (the batches of the first sync), and
        // 998 of the colleague's records in its other project: charged as the store charges what it takes.
        let laptop = f.laptopKeys.profile.deviceID
        try f.desk.unlocked.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            try store.chargeQuota(of: laptop, in: book.id, on: quota.today, SyncQuotaUse(records: 49_000, bytes: 49_000 * each))
            try store.chargeQuota(of: laptop, in: notes.id, on: quota.today, SyncQuotaUse(records: 998, bytes: 998 * each))
        }
        #expect(try Self.push(records[...], of: book, to: responder, from: f).stored == 2)
        #expect(F.details(f.desk, .syncExchangeRefused, "reason").isEmpty)
        #expect(try Self.laptopRecords(on: responder, of: book, f) == 2)
    }

    @Test func theOwnersOwnDeviceIsNeverBounded() throws {
        let f = try F(deskTrusts: .mine, laptopTrusts: .mine)
        let project = try F.project(f.desk, "Ours")
        let responder = SyncResponder(vault: f.desk.unlocked, quota: SyncDeviceQuota(records: 2, bytes: 1))
        #expect(try Self.push(try Self.records(f, project, 6)[...], of: project, to: responder, from: f).stored == 6)
        #expect(try SyncStatus.refusals(f.desk.unlocked).isEmpty)
    }

    /// The owner's device pulling from a colleague's (whose project it is) is bounded the same way:
    /// the project is left for the run with the reason, nothing of the batch stored, and synced the next day.
    @Test func pullingFromAColleaguePastItsBoundLeavesTheProjectUntilTheNextDay() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Their book")
        let document = try F.document(f.desk, in: project, "Chapter", ["It begins."])
        try F.share(project, of: f.desk, with: f.laptop, role: .editor)
        let now = Mutex<Int64>(20_000 * 86_400)
        let quota = SyncDeviceQuota(records: 100, bytes: 16, clock: VaultClock { now.withLock { $0 } })
        func run() throws -> SyncRunReport {
            try SyncInitiator(vault: f.laptop.unlocked, transport: try f.transport(), coordinator: nil, quota: quota).run()
        }
        let report = try run()
        let entry = try #require(report.projects.first { $0.project == project.id })
        #expect(entry.received == 0 && entry.skipped?.hasPrefix("quotaExceeded:") == true, "\(entry)")
        let status = try #require(try SyncStatus.projects(f.laptop.unlocked).first { $0.project == project.id })
        #expect(!status.syncs && status.refused.map(\.reasons) == [["quotaExceeded"]], "\(status)")
        // A day later the bound is the day's again, and more than the project's one record: it syncs.
        now.withLock { $0 += 86_400 }
        _ = try SyncInitiator(vault: f.laptop.unlocked, transport: try f.transport(), coordinator: nil,
                              quota: SyncDeviceQuota(records: 100, bytes: 1 << 20, clock: VaultClock { now.withLock { $0 } })).run()
        #expect(try F.texts(f.laptop, project.id, document) == ["It begins."])
    }

    /// A damaged row of a device's day's count (a count no writer makes, past any day's bound) is that
    /// device's damage (reviewer12 on ac2bc31, F13 LOW): sync with it stops, saying which device and
    /// table and that `vaultctl repair` mends it, while the owner's project is not touched; read
    /// between two checks of the tables, the day's sum saturates and the batch is refused as past the
    /// bound. Before, the rows' sum overflowed in SQLite ("integer overflow") and every exchange with
    /// the device failed with an error that named nothing.
    @Test func aDamagedRowOfADevicesDayStopsSyncWithThatDeviceAloneSayingWhyUntilRepaired() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let project = try F.project(f.desk, "Launch plan")
        try F.share(project, of: f.desk, with: f.laptop, role: .editor)
        let quota = SyncDeviceQuota()
        let watched = SyncResponder(vault: f.desk.unlocked, quota: quota)
        let records = try Self.records(f, project, 3)
        #expect(try Self.push(records[0..<1], of: project, to: watched, from: f).stored == 1)
        // Two rows of the laptop's today of 2^62 records each: their sum passes 2^63 − 1.
        let laptop = f.laptopKeys.profile.deviceID
        try f.desk.tamper("""
            UPDATE sync_device_quotas SET records = 4611686018427387904 WHERE device_id = X'\(laptop.hex)';
            INSERT INTO sync_device_quotas (device_id, project_id, day, records, bytes)
                VALUES (X'\(laptop.hex)', randomblob(16), \(quota.today), 4611686018427387904, 0);
            """)

        // Between two checks of the tables (the watched responder's last verdict stands): past the bound.
        #expect(throws: SyncExchangeError(.quotaExceeded, "")) { try Self.push(records[1..<2], of: project, to: watched, from: f) }
        // At the next check: the device's damage, said.
        do {
            _ = try Self.push(records[1..<2], of: project, to: SyncResponder(vault: f.desk.unlocked, quota: quota), from: f)
            Issue.record("a push was answered over the device's damaged rows")
        } catch let error as SyncError {
            #expect(error.code == .damagedSyncState
                    && error.message.contains("the sync state of device \(laptop.hex) is damaged: the table sync_device_quotas holds 2 row(s)")
                    && error.message.contains("a count past any day's bound") && error.message.contains("'vaultctl repair' mends it"), "\(error)")
        }
        #expect(try SyncStatus.exchangeProblem(f.desk.unlocked) == nil, "one device's rows stopped every exchange")
        #expect(try SyncStatus.read(f.desk.unlocked).first { $0.device == laptop }?.damaged?.contains("sync_device_quotas") == true)
        #expect(try SyncStatus.projects(f.desk.unlocked).allSatisfy { if case .ready = $0.state { true } else { false } },
                "the owner's project is not the damage")

        // `repair` drops the damaged rows (one audited transaction), and the laptop's records are taken again.
        let mend = try DamagedExchangeStateTests.mend(f.desk)
        #expect(mend.dropped["sync_device_quotas"] == 2, "\(mend)")
        #expect(try Self.push(records[1..<3], of: project, to: SyncResponder(vault: f.desk.unlocked, quota: quota), from: f).stored == 2)
    }
}
