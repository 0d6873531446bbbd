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
        case shareRoleAltered, rosterKeyAltered, pausedFlagGarbage, vectorGarbage, forksTableDropped, skipsColumnsAltered

        var table: String {
            switch self {
            case .shareRoleAltered: "sync_shares"
            case .rosterKeyAltered: "sync_roster"
            case .pausedFlagGarbage: "sync_peers"
            case .vectorGarbage: "sync_peer_vectors"
            case .forksTableDropped: "sync_forks"
            case .skipsColumnsAltered: "sync_project_skips"
            }
        }

        var sql: String {
            switch self {
            case .shareRoleAltered: "PRAGMA ignore_check_constraints = ON; UPDATE sync_shares SET role = 'admin'"
            case .rosterKeyAltered: "UPDATE sync_roster SET signing_key = randomblob(32) WHERE noise_key IS NOT NULL"
            case .pausedFlagGarbage: "PRAGMA ignore_check_constraints = ON; UPDATE sync_peers SET paused = 'no'"
            case .vectorGarbage: "UPDATE sync_peer_vectors SET vector = x'ffff01'"
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
        let mend = try f.laptop.unlocked.transaction { tx in try SyncExchangeHealth.mend(in: tx) }
        #expect(mend.remade.contains(damage.table) || (mend.dropped[damage.table] ?? 0) >= 1, "\(mend)")
        #expect(F.details(f.laptop, .syncExchangeMended, "dropped").count == 1)
        #expect(try SyncStatus.exchangeProblem(f.laptop.unlocked) == nil)
        #expect(try f.laptop.unlocked.transaction { tx in try SyncExchangeHealth.mend(in: tx) } == SyncExchangeMend(), "a whole state needs no mending")
        if damage == .pausedFlagGarbage {
            // The damaged device row came back paused: a pause is never lost. The owner resumes.
            #expect(throws: SyncExchangeError(.paused, "")) { try f.syncLaptop() }
            try SyncControl.setPaused(false, device: f.deskKeys.profile.deviceID, in: f.laptop.unlocked)
        }
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
}
