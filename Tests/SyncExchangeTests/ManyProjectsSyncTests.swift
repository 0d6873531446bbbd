import CryptoVault
import Sync
import Testing
import TestSupport
import Writing

/// A vault of more projects than one message (or one egress decision) can name syncs with the
/// owner's own device: the projects list is paged (review 17 s8, F15: a client's or a matter's
/// project each, 125 of them stopped every sync, 1,025 could not even be listed).
@Suite struct ManyProjectsSyncTests {
    static func make(_ count: Int, on vault: TestVault, named prefix: String) throws -> Set<ProjectID> {
        Set(try (1...count).map { try SyncExchangeFixture.project(vault, "\(prefix) \($0)").id })
    }

    static func held(_ vault: TestVault) throws -> Set<ProjectID> {
        Set(try vault.unlocked.transaction { tx in try WritingStore(tx).projects().map(\.id) })
    }

    @Test func aDeskOf1100ProjectsSyncsWithTheLaptopAndRepairRebuildsThemAll() throws {
        let f = try SyncExchangeFixture()
        let made = try Self.make(1_100, on: f.desk, named: "Matter")
        let first = try f.syncLaptop()
        #expect(first.projects.count == 1_100 && first.refused == 0)
        #expect(try Self.held(f.laptop) == made)
        // Each page is its own egress decision: none names more than a page's compartments.
        let named = SyncExchangeFixture.details(f.desk, .egressDecision, "compartments").map { $0.split(separator: ",").count }
        #expect(named.count >= 18 && named.allSatisfy { $0 <= SyncWire.maximumOffers }, "\(named)")

        let later = try SyncExchangeFixture.project(f.desk, "Matter 1101").id
        let second = try f.syncLaptop()
        #expect(second.projects.count == 1_101 && second.refused == 0)
        #expect(try Self.held(f.laptop) == made.union([later]))

        let repair = try StoreRepair(vault: f.laptop.unlocked, transport: try f.transport()).run()
        #expect(Set(repair.projects.map(\.project)) == made.union([later]) && repair.notHere.isEmpty && repair.notOffered.isEmpty, "\(repair.notOffered)")
        #expect(try Self.held(f.laptop) == made.union([later]))
    }

    /// The other way: the laptop offers the desk the projects the desk lacks, page by page.
    @Test func aLaptopOf130NewProjectsOffersThemAllToTheDesk() throws {
        let f = try SyncExchangeFixture()
        let made = try Self.make(130, on: f.laptop, named: "Client")
        let run = try f.syncLaptop()
        #expect(run.projects.count == 130 && run.refused == 0 && run.projects.allSatisfy { $0.skipped == nil })
        #expect(try Self.held(f.desk) == made)
    }
}
