import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// One byte of a stored record's project id changed (review 17 s11, N-s11-5): the row then names
/// no project here, so every per-project query passed it over. Nothing noticed it (`sync status`
/// "syncs", `repair` "nothing to mend") and this device's next record of the project took the
/// counter that record holds: two records of one number, a fork its own devices refuse for good.
/// Now the row is found (a stored record that names no project here), whose it is is told by the
/// compartment its sealed record is kept in, that project works local-only with the reason (and
/// every project, when that cannot be told), and `repair` writes the project id again from the
/// signed record.
@Suite(.serialized)
struct UnownedRecordTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor
    let other: WritingProject

    init() throws {
        (vault, project, author, peer) = try Self.makeSyncedVault(project: "Memo")
        other = try vault.unlocked.createWritingProject(named: "Other", register: .general, kind: .document)
    }

    /// Writes `text` as the one document of `project` (made on the first call) and commits it.
    @discardableResult
    func write(_ text: String, in project: WritingProject) throws -> ChangeRecord? {
        try store { store in
            let node = try store.nodes(in: project.id).first { $0.kind == .scene } ?? store.addNode(.scene, titled: "Draft", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [
                Block(id: try BlockID.random(), kind: .paragraph, text: text),
            ]))
        }
        return try sync { try $0.commitLocalChanges(in: project.id) }
    }

    /// Changes the stored rows with a connection of its own (no foreign keys checked: what a
    /// flipped byte on disk leaves).
    func damage(_ sql: String) throws {
        try Database(path: vault.directory + "/vault.db", create: false, readOnly: false).execute(sql)
    }

    /// The last byte of the project id of this device's latest record of `project` made 00 or FF.
    func flipProjectID(of counter: Int, in project: WritingProject) throws {
        try damage("""
            UPDATE sync_records SET project_id = CAST(substr(project_id, 1, 15) || CASE WHEN substr(project_id, 16, 1) = X'00' THEN X'FF' ELSE X'00' END AS BLOB)
            WHERE project_id = X'\(project.id.hex)' AND counter = \(counter)
            """)
        // Still an id of 16 bytes: only which project it names changed.
        let strays = try sync { try $0.database.queryOne("SELECT count(*) AS rows FROM sync_records WHERE typeof(project_id) = 'blob' AND length(project_id) = 16 AND project_id NOT IN (?, ?)",
                                                         [.blob(project.id.bytes), .blob(other.id.bytes)])?.integer("rows") }
        try #require(strays == 1)
    }

    func reason(of project: WritingProject) throws -> String? {
        guard case .localOnly(let reason) = try sync({ try $0.state(of: project.id) }) else { return nil }
        return reason
    }

    func counters(of project: WritingProject) throws -> [Int64] {
        try sync { sync in
            try sync.database.query("SELECT counter FROM sync_records WHERE project_id = ? ORDER BY counter", [.blob(project.id.bytes)]).map { try $0.integer("counter") }
        }
    }

    @Test func aRecordWhoseProjectIDNamesNoProjectMakesItsProjectLocalOnlyAndRepairWritesTheIDAgain() throws {
        try #require(try write("First.", in: project)?.counter == 1)
        try #require(try write("First. Second.", in: project)?.counter == 2)
        try write("Elsewhere.", in: other)
        try flipProjectID(of: 2, in: project)

        // The project is local-only, naming the row; the other project (its record is kept in its
        // own compartment) syncs as ever.
        let reason = try #require(try reason(of: project), "a hidden record passed unnoticed")
        #expect(reason.contains("1 stored record(s) of it name no project here"), "\(reason)")
        #expect(reason.contains("'vaultctl repair' mends"), "\(reason)")
        #expect(try self.reason(of: other) == nil)

        // No record is signed there meanwhile: its next would take counter 2 again.
        let refused = #expect(throws: SyncError.self) { try write("First. Second. Third.", in: project) }
        #expect(refused?.code == .damagedSyncState, "\(String(describing: refused))")
        #expect(try counters(of: project) == [1])

        // `repair` writes the project id again from the signed record, in one audited transaction.
        let mend = try VaultSync.DamagedRecords.mend(vault.unlocked)
        #expect(mend.mended == [project.id: 1], "\(mend)")
        #expect(mend.unowned == 0, "\(mend)")
        #expect(vault.recording.events.withLock { $0.contains { $0.action == .syncRecordsMended } })
        #expect(try counters(of: project) == [1, 2])
        #expect(try self.reason(of: project) == nil)
        #expect(try write("First. Second. Third.", in: project)?.counter == 3)
    }

    @Test func aRecordWhoseProjectIDIsNotAnIDAtAllIsFoundToo() throws {
        try write("First.", in: project)
        try #require(try write("First. Second.", in: project)?.counter == 2)
        // Of another type: a flipped bit in the row's header (blob made text).
        try damage("UPDATE sync_records SET project_id = CAST(hex(project_id) AS TEXT) WHERE counter = 2")

        let reason = try #require(try reason(of: project))
        #expect(reason.contains("name no project here"), "\(reason)")
        #expect(try self.reason(of: other) == nil)
        #expect(try VaultSync.DamagedRecords.mend(vault.unlocked).mended == [project.id: 1])
        #expect(try write("First. Second. Third.", in: project)?.counter == 3)
    }

    @Test func whenWhoseItIsCannotBeToldEveryProjectIsLocalOnlyAndRepairKeepsTheRow() throws {
        try write("First.", in: project)
        try #require(try write("First. Second.", in: project)?.counter == 2)
        // Its hash changed too: no sealed record is kept under it, so it could be any project's
        // (the other one's included, though that holds no record yet).
        try flipProjectID(of: 2, in: project)
        try damage("UPDATE sync_records SET hash = CAST(substr(hash, 1, 31) || CASE WHEN substr(hash, 32, 1) = X'00' THEN X'FF' ELSE X'00' END AS BLOB) WHERE counter = 2 AND project_id != X'\(project.id.hex)'")

        for held in [project, other] {
            let reason = try #require(try reason(of: held), "\(held.id)")
            #expect(reason.contains("whose they are cannot be told"), "\(reason)")
        }
        #expect(throws: SyncError.self) { try write("Elsewhere.", in: other) }

        // `repair` cannot tell whose it is: it keeps the row (dropping it would let the counter be
        // signed again) and says so; `repair --from` rebuilds the store.
        let mend = try VaultSync.DamagedRecords.mend(vault.unlocked)
        #expect(mend.unowned == 1 && mend.mended.isEmpty && mend.dropped.isEmpty, "\(mend)")
        #expect(try self.reason(of: other) != nil)
    }

    /// A hostile rewrite (session 13, task 2): the project id of this device's latest record of the
    /// project made the OTHER project's, a real one here. Before, that other project went local-only
    /// (the record does not open in its compartment) while this one said "syncs", and its next record
    /// took counter 2 again. The record's compartment tells whose it is: both are local-only, each
    /// saying why, and `repair` moves the row back.
    @Test func aRecordMovedToAnotherProjectsIDLeavesBothLocalOnlyAndRepairMovesItBack() throws {
        try #require(try write("First.", in: project)?.counter == 1)
        try #require(try write("First. Second.", in: project)?.counter == 2)
        try write("Elsewhere.", in: other)
        try damage("UPDATE sync_records SET project_id = X'\(other.id.hex)' WHERE project_id = X'\(project.id.hex)' AND counter = 2")
        try #require(try counters(of: project) == [1] && counters(of: other) == [1, 2])

        let own = try #require(try reason(of: project), "the record moved away passed unnoticed")
        #expect(own.contains("1 stored record(s) of it") && own.contains("are named as another project's (project \(other.id))"), "\(own)")
        let named = try #require(try reason(of: other))
        #expect(named.contains("1 stored record(s) named as this project's are kept in another project's compartment"), "\(named)")
        let refused = #expect(throws: SyncError.self) { try write("First. Second. Third.", in: project) }
        #expect(refused?.code == .damagedSyncState, "\(String(describing: refused))")
        #expect(try counters(of: project) == [1])

        let mend = try VaultSync.DamagedRecords.mend(vault.unlocked)
        #expect(mend.mended == [project.id: 1], "\(mend)")
        #expect(try self.reason(of: project) == nil && self.reason(of: other) == nil)
        #expect(try write("First. Second. Third.", in: project)?.counter == 3)
    }

    /// The verdict that every row names its own project is kept for the connection until another
    /// connection commits (review 17 s12, PERF: each replica read every project's ids, O(P²) over a
    /// cold exchange): this connection's own writes leave it standing, a byte changed by another
    /// connection is met at the next replica.
    @Test func theCleanVerdictIsKeptUntilAnotherConnectionWrites() throws {
        try write("First.", in: project)
        try write("Elsewhere.", in: other)
        #expect(try self.reason(of: project) == nil)
        #expect(try sync { try VaultSync.UnownedRecords.keptClean(in: $0.transaction) })
        try write("First. Second.", in: project)
        #expect(try sync { try VaultSync.UnownedRecords.keptClean(in: $0.transaction) })

        try flipProjectID(of: 2, in: project)
        #expect(try !sync { try VaultSync.UnownedRecords.keptClean(in: $0.transaction) })
        #expect(try self.reason(of: project)?.contains("name no project here") == true)
        #expect(try !sync { try VaultSync.UnownedRecords.keptClean(in: $0.transaction) }, "a verdict of damage is never kept")
    }
}
