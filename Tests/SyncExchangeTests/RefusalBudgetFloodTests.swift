import CryptoVault
import PeerChannel
@testable import Sync
import Synchronization
import Testing
import TestSupport
import Writing

/// A hostile paired device flooding either side with records that are refused cannot grow that
/// vault's audit log past its budget (SECURITY.md §19.9, "Refusals are bounded"): a batch's refusals
/// are recorded one by one only while the device's budget lasts, the rest as one summary naming how
/// many, and the honest record among them is still taken.
@Suite(.serialized) struct RefusalBudgetFloodTests {
    typealias F = SyncExchangeFixture

    /// The `sync.record-refused` entries' details, in order.
    static func refusals(_ vault: TestVault) -> [[String: String]] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == .syncRecordRefused }.map { Dictionary($0.details.map { ($0.name, $0.value) }) { first, _ in first } }
        }
    }

    @Test func aPushOfFourThousandRefusedRecordsCostsTheAnswerersLogItsBudgetAndOneSummary() throws {
        let f = try F()
        let project = try F.project(f.desk, "Shared")
        let time = Mutex(1_000.0)
        let budget = SyncRefusalBudget(bound: 64, seconds: 60, clock: .forwardOnly { time.withLock { $0 } })
        let responder = SyncResponder(vault: f.desk.unlocked, refusals: budget)
        let laptop = f.laptopKeys.profile
        // One honest record of the laptop, and 4,095 signed by a device the desk does not know.
        var honest = SyncReplica(project: project.id, author: SyncAuthor(device: laptop.deviceID, key: f.laptopKeys.signingKey), devices: [:])
        let (_, good) = try honest.createDocument(titled: "Honest")
        var stranger = SyncReplica(project: project.id, author: try SyncAuthor.random(), devices: [:])
        var junk: [[UInt8]] = []
        for _ in 0..<4_095 { junk.append(try stranger.commit([.node(try NodeID.random(), .removed)]).encoded) }
        let push = SyncPushRequest(project: project.id, records: junk + [good.encoded]).serialized()
        let answer = try SyncPushAnswer(parsing: try responder.respond(to: SyncWire.pushKind, body: push, from: laptop).bytes)
        #expect(answer.stored == 1 && answer.refused.count == 4_095 && Set(answer.refused) == ["unknownDevice"])
        let entries = Self.refusals(f.desk)
        #expect(entries.count == 65, "64 one by one and one summary, not 4,095: \(entries.count)")
        #expect(entries.prefix(64).allSatisfy { $0["reason"] == "unknownDevice" && $0["hash"]?.count == 64 })
        #expect(entries.last?["reason"] == "tooManyRefusals" && entries.last?["unrecorded"] == "4031", "\(entries.last ?? [:])")
        // The budget is spent: the device's next request is refused unread, and nothing more is recorded.
        #expect(throws: SyncExchangeError(.tooManyRefusals, "")) { try responder.respond(to: SyncWire.pushKind, body: push, from: laptop) }
        #expect(Self.refusals(f.desk).count == 65)
        // After the window it is answered again, its refusals recorded within a fresh budget.
        time.withLock { $0 += 61 }
        _ = try responder.respond(to: SyncWire.pushKind, body: push, from: laptop)
        #expect(Self.refusals(f.desk).count == 65 + 64 + 1)
        #expect(try F.hasProject(f.desk, project.id))
    }

    @Test func anAnswererFloodingPullsWithRefusedRecordsCostsTheAskersLogItsBudgetAndHonestRecordsAreTaken() throws {
        let answerer = ForgingAnswerer()
        let f = try F(deskTrusts: .mine, laptopTrusts: .mine, deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        let project = try F.project(f.laptop, "Ours")
        _ = try F.document(f.laptop, in: project, "Draft", ["words"])
        answerer.offer(project, access: .mine)
        try answerer.plant(in: project.id)
        var stranger = SyncReplica(project: project.id, author: try SyncAuthor.random(), devices: [:])
        for _ in 0..<4_000 { answerer.keep(try stranger.commit([.node(try NodeID.random(), .removed)])) }
        let time = Mutex(1_000.0)
        let budget = SyncRefusalBudget(bound: 64, seconds: 60, clock: .forwardOnly { time.withLock { $0 } })
        func run() throws -> SyncRunReport {
            try SyncInitiator(vault: f.laptop.unlocked, transport: try f.transport(), coordinator: nil, refusals: budget).run()
        }
        let report = try run()
        #expect(report.received == 1 && report.refused == 4_000, "\(report)")
        var entries = Self.refusals(f.laptop)
        #expect(entries.count == 65, "64 one by one and one summary, not 4,000: \(entries.count)")
        #expect(entries.last?["reason"] == "tooManyRefusals" && entries.last?["unrecorded"] == "3936", "\(entries.last ?? [:])")
        // Within the window a second run records one summary only; the honest record stays taken.
        _ = try run()
        entries = Self.refusals(f.laptop)
        #expect(entries.count == 66 && entries.last?["unrecorded"] == "3999", "\(entries.count)")
    }
}
