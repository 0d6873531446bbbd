import CryptoVault
@testable import Sync
import Testing
import TestSupport
import Writing

/// One leak-guard finding stops no more sharing with a colleague than it must (review 17 s8, F6 a): a
/// finding in one project's name keeps that project's offer alone, never the device's other projects.
@Suite struct LeakFindingSharingTests {
    typealias F = SyncExchangeFixture

    @Test func aFindingInOneProjectsNameKeepsThatOfferAloneAndSyncStatusSaysWhy() throws {
        let f = try F(deskTrusts: .other, laptopTrusts: .other)
        let plan = try F.project(f.desk, "Launch plan")
        let document = try F.document(f.desk, in: plan, "Plan", ["We launch in May."])
        let mail = try F.project(f.desk, "Mail ada@example.org")
        for project in [plan, mail] { try F.share(project, of: f.desk, with: f.laptop, role: .editor) }

        let report = try f.syncLaptop()
        #expect(report.projects.map(\.project) == [plan.id], "\(report)")
        #expect(try F.texts(f.laptop, plan.id, document) == ["We launch in May."])
        #expect(try !F.hasProject(f.laptop, mail.id))
        // The owner's sync status says why the other was not offered: the finding's kind, never the words.
        let status = try #require(try SyncStatus.projects(f.desk.unlocked).first { $0.project == mail.id })
        let skip = try #require(status.skipped.first, "\(status)")
        #expect(skip.peer == f.laptopKeys.profile.deviceID && skip.reason.hasPrefix("egressRefused:") && skip.reason.contains("email 1"), "\(skip)")
        #expect(!skip.reason.contains("ada@"), "\(skip)")
        // Recorded once, not at every exchange.
        try f.syncLaptop()
        #expect(F.details(f.desk, .syncProjectSkipped, "project") == [mail.id.hex])
    }
}
