import CryptoVault
import PeerChannel
@testable import Sync
import Synchronization
import Testing
import TestSupport
import Writing

/// A paired device cannot grow the answering vault's audit log without bound (review 17, F4;
/// SECURITY.md §19.9, "Refusals are bounded"): a push for a project this vault lacks is refused
/// whole, before any record is read, as one entry naming the count; and past a bound of refusals in
/// a time one summary is recorded, the device's requests are refused unread until the time has
/// passed, and then how many went unrecorded is recorded once.
@Suite(.serialized) struct RefusalFloodTests {
    typealias F = SyncExchangeFixture

    @Test func aPushForAProjectThisVaultLacksIsRefusedWholeAsOneEntryNamingItsCount() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let unknown = try ProjectID.random()
        let flood = SyncPushRequest(project: unknown, records: Array(repeating: [0x01], count: 4_096))
        #expect(throws: SyncExchangeError(.notShared, "")) {
            try f.transport().requestAsAnyPeer(SyncWire.pushKind, body: flood.serialized())
        }
        let entries = f.desk.recording.events.withLock { $0.filter { $0.action == .syncExchangeRefused } }
        try #require(entries.count == 1, "\(entries)")
        let details = Dictionary(uniqueKeysWithValues: entries[0].details.map { ($0.name, $0.value) })
        #expect(details["reason"] == "notShared" && details["records"] == "4096" && details["project"] == unknown.hex
                && details["request"] == SyncWire.pushKind && details["peer"] == f.laptopKeys.profile.deviceID.hex, "\(details)")
        #expect(!f.desk.recording.actions.contains("sync.record-refused"))
    }

    @Test func refusalsPastTheBoundAreSummarisedOnceTheDeviceIsRefusedUnreadAndTheUnrecordedCountComesAfterTheWindow() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let time = Mutex(1_000.0)
        let budget = SyncRefusalBudget(bound: 5, seconds: 60, clock: .forwardOnly { time.withLock { $0 } })
        let responder = SyncResponder(vault: f.desk.unlocked, refusals: budget)
        let laptop = f.laptopKeys.profile
        func pullUnknown() throws -> SyncExchangeErrorCode? {
            let body = SyncPullRequest(project: try ProjectID.random(), held: [:]).serialized()
            do { _ = try responder.respond(to: SyncWire.pullKind, body: body, from: laptop) } catch let error as SyncExchangeError { return error.code }
            return nil
        }
        func reasons() -> [String] { F.details(f.desk, .syncExchangeRefused, "reason") }

        let codes = try (0..<20).map { _ in try pullUnknown() }
        #expect(codes == Array(repeating: .notShared, count: 6) + Array(repeating: .tooManyRefusals, count: 14), "\(codes)")
        #expect(reasons() == Array(repeating: "notShared", count: 5) + ["tooManyRefusals"])
        #expect(F.details(f.desk, .syncExchangeRefused, "bound") == ["5"])
        // Past the bound even a request it may make is refused unread, and not recorded.
        #expect(throws: SyncExchangeError(.tooManyRefusals, "")) {
            try responder.respond(to: SyncWire.projectsKind, body: [SyncWire.version], from: laptop)
        }
        #expect(reasons().count == 6)
        // Another device has a budget of its own.
        let other = try TestVault(modules: F.modules).unlocked.deviceKeys(named: "other").profile
        try f.desk.unlocked.storePairing(FamilyPairing(peer: other, role: .host, pairedAt: 1))
        #expect(throws: SyncExchangeError(.notShared, "")) {
            try responder.respond(to: SyncWire.pullKind, body: SyncPullRequest(project: try ProjectID.random(), held: [:]).serialized(), from: other)
        }

        // After the window: the count that went unrecorded (the sixth refusal on, and the projects
        // request) is recorded once, and the device's requests are answered again.
        time.withLock { $0 += 61 }
        _ = try responder.respond(to: SyncWire.projectsKind, body: [SyncWire.version], from: laptop)
        #expect(F.details(f.desk, .syncExchangeRefused, "unrecorded") == ["16"])
        #expect(try pullUnknown() == .notShared)
        #expect(reasons().suffix(2) == ["tooManyRefusals", "notShared"])
    }

    @Test func aBudgetCountsRefusalsRecordedElsewhereAndSummarisesOnce() throws {
        let time = Mutex(0.0)
        let budget = SyncRefusalBudget(bound: 3, seconds: 10, clock: .forwardOnly { time.withLock { $0 } })
        let device = try DeviceID(bytes: Array(repeating: 7, count: 16))
        #expect(budget.charge(device, 2) == .init(record: true, summarise: false))
        // A push's records, each recorded as verified, pass the bound: the summary, once.
        #expect(budget.charge(device, 4, recordedAlready: true) == .init(record: false, summarise: true))
        #expect(budget.open(device) == (over: true, unrecorded: 0))
        #expect(budget.charge(device, 1) == .init(record: false, summarise: false))
        time.withLock { $0 = 10 }
        #expect(budget.open(device) == (over: false, unrecorded: 1))
        #expect(budget.open(device) == (over: false, unrecorded: 0), "the unrecorded count is given once")
        #expect(budget.charge(device, 1) == .init(record: true, summarise: false))
    }
}
