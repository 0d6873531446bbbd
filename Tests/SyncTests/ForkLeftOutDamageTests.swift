import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A damaged row of `sync_fork_left_out` (fork14's "left open": a record the fork rule left out of its
/// project's replica, SECURITY.md §19.4, whose clear columns no writer stores). Before, such a row was
/// no project's damage: the whole writing store went to the in-memory mode, and `vaultctl repair`
/// did not mend it. Now it is its project's damaged sync state (local-only with the table in the
/// reason), and `repair` writes it again from the sealed record it names, or drops it when that does
/// not open (a left-out copy only bounds what a forker may choose).
@Suite(.serialized)
struct ForkLeftOutDamageTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Book") }

    @discardableResult
    func write(_ text: String) throws -> ChangeRecord? {
        try store { store in
            let node = try store.nodes(in: project.id).first { $0.kind == .scene } ?? store.addNode(.scene, titled: "Notes", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [
                Block(id: try BlockID.random(), kind: .paragraph, text: text),
            ]))
        }
        return try sync { try $0.commitLocalChanges(in: project.id) }
    }

    /// Changes the stored rows with a connection of its own, CHECKs off (what a flipped bit leaves).
    func damage(_ sql: String) throws {
        try Database(path: vault.directory + "/vault.db", create: false, readOnly: false).execute("PRAGMA ignore_check_constraints = ON; " + sql)
    }

    /// Record `counter` moved out of the replica as `keepLeftOut` keeps it (forked by its signer).
    func leaveOut(_ counter: Int) throws {
        try damage("""
            INSERT INTO sync_fork_left_out (hash, project_id, device_id, counter, parts, forked_by, left_at)
                SELECT hash, project_id, device_id, counter, parts, device_id, 7 FROM sync_records WHERE counter = \(counter);
            DELETE FROM sync_records WHERE counter = \(counter);
            """)
    }

    func reason() throws -> String? {
        guard case .localOnly(let reason) = try sync({ try $0.state(of: project.id) }) else { return nil }
        return reason
    }

    func rows() throws -> [String] {
        try sync { sync in
            try sync.database.query("SELECT counter, hex(device_id) AS device, hex(forked_by) AS forker, left_at FROM sync_fork_left_out ORDER BY rowid").map { row in
                "\(try row.integer("counter")) \(try row.text("device").lowercased()) \(try row.text("forker").lowercased()) \(try row.integer("left_at"))"
            }
        }
    }

    @Test func aFlippedLeftOutRowIsItsProjectsDamageAndRepairWritesItAgainFromItsRecord() throws {
        for (counter, text) in ["First.", "First. Second.", "First. Second. Third."].enumerated() {
            try #require(try write(text)?.counter == UInt64(counter + 1))
        }
        try leaveOut(3)
        let me = author.device.hex
        #expect(try rows() == ["3 \(me) \(me) 7"])
        #expect(try reason() == nil)
        // Its counter's sign flipped, the device that forked of another type.
        try damage("UPDATE sync_fork_left_out SET counter = -3, forked_by = 'x'")

        let why = try #require(try reason(), "a damaged left-out row passed unnoticed")
        #expect(why.contains("1 row(s) of sync_fork_left_out") && why.contains("'vaultctl repair' mends it"), "\(why)")

        let mend = try VaultSync.DamagedRows.mend(vault.unlocked)
        #expect(mend.mended == ["sync_fork_left_out": 1] && mend.dropped.isEmpty && mend.waiting.isEmpty, "\(mend)")
        #expect(try rows() == ["3 \(me) \(me) 7"])
        #expect(try reason() == nil)
    }

    @Test func aLeftOutRowWhoseRecordDoesNotOpenIsDropped() throws {
        try #require(try write("First.")?.counter == 1)
        try damage("""
            INSERT INTO sync_fork_left_out (hash, project_id, device_id, counter, parts, forked_by, left_at)
            VALUES (randomblob(32), X'\(project.id.hex)', X'\(peer.device.hex)', -5, 1, X'\(peer.device.hex)', 0)
            """)
        #expect(try reason()?.contains("row(s) of sync_fork_left_out") == true)
        let mend = try VaultSync.DamagedRows.mend(vault.unlocked)
        #expect(mend.dropped == ["sync_fork_left_out": 1] && mend.mended.isEmpty && mend.waiting.isEmpty, "\(mend)")
        #expect(try rows().isEmpty && (try reason()) == nil)
        #expect(try write("First. Second.")?.counter == 2, "the project takes changes as before")
    }
}
