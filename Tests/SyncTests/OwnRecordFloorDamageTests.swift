import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A damaged `sync_own_floors` row (a counter below zero, which no writer stores: a CHECK-bypassing
/// write, review 17 s8 F18's threat) is damage of the project's sync state, never a trap: the
/// project works local-only with the reason (damage helper, session 10).
@Suite struct OwnRecordFloorDamageTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Intake notes") }

    @Test func aNegativeFloorCounterIsDamagedSyncStateNotATrap() throws {
        try sync { sync in
            try sync.transaction.database.execute("PRAGMA ignore_check_constraints = ON")
            _ = try sync.transaction.database.query("INSERT INTO sync_own_floors (project_id, counter, set_at) VALUES (?, -5, 0)",
                                                    [.blob(project.id.bytes)])
            try sync.transaction.database.execute("PRAGMA ignore_check_constraints = OFF")
        }
        let error = #expect(throws: SyncError.self) {
            try sync { try OwnRecordFloor(database: $0.transaction.database).floor(of: project.id) }
        }
        #expect(error?.code == .damagedSyncState)
        #expect(error?.message.contains("is not a counter") == true, "\(String(describing: error))")
    }
}
