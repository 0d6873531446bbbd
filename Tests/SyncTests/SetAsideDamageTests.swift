import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A damaged row of `sync_set_aside` (closing note s13, "Left open": one of this device's records its
/// project's origin refused, set aside as signed, whose clear columns no writer stores). Before, such
/// a row was no project's damage: the whole writing store went to the in-memory mode, and `vaultctl
/// repair` did not mend it. Now it is its project's damaged sync state (local-only with the table in
/// the reason, never read as if whole), and `repair` writes it again from the sealed record it names,
/// or drops it when that does not open, making the project wait for an own device when the row may
/// have held one of this device's records (its counter is never signed again meanwhile).
@Suite(.serialized)
struct SetAsideDamageTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Case") }

    /// Writes `text` as the project's one document and commits it.
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

    /// Record `counter` moved aside as `setAsideRefused` moves it (refused by `peer`).
    func setAside(_ counter: Int) throws {
        try damage("""
            INSERT INTO sync_set_aside (hash, project_id, device_id, counter, lamport, parts, stored_at, refused_by, set_at)
                SELECT hash, project_id, device_id, counter, lamport, parts, stored_at, X'\(peer.device.hex)', 7 FROM sync_records WHERE counter = \(counter);
            DELETE FROM sync_records WHERE counter = \(counter);
            """)
    }

    /// A set-aside row of no record (its hash names none), of `device`, its counter past its CHECK.
    func strayRow(of device: DeviceID) throws {
        try damage("""
            INSERT INTO sync_set_aside (hash, project_id, device_id, counter, lamport, parts, stored_at, refused_by, set_at)
            VALUES (randomblob(32), X'\(project.id.hex)', X'\(device.hex)', -5, 1, 1, 0, X'\(peer.device.hex)', 0)
            """)
    }

    func reason() throws -> String? {
        guard case .localOnly(let reason) = try sync({ try $0.state(of: project.id) }) else { return nil }
        return reason
    }

    func rows() throws -> [String] {
        try sync { sync in
            try sync.database.query("SELECT counter, hex(refused_by) AS refused_by, set_at FROM sync_set_aside ORDER BY rowid").map { row in
                "\(try row.integer("counter")) \(try row.text("refused_by").lowercased()) \(try row.integer("set_at"))"
            }
        }
    }

    func mended() -> [String] {
        vault.recording.events.withLock { $0.filter { $0.action == .syncRowsMended } }.flatMap { $0.details.map { "\($0.name)=\($0.value)" } }
    }

    @Test func aFlippedSetAsideRowIsItsProjectsDamageAndRepairWritesItAgainFromItsRecord() throws {
        for (counter, text) in ["First.", "First. Second.", "First. Second. Third."].enumerated() {
            try #require(try write(text)?.counter == UInt64(counter + 1))
        }
        try setAside(2)
        try setAside(3)
        // Counter 3's row: its counter's sign flipped, its refusing device of another type.
        try damage("UPDATE sync_set_aside SET counter = -3, refused_by = 'x' WHERE counter = 3")

        // Local-only, naming the table; the rows are not read as if whole (no set-aside said from them).
        let why = try #require(try reason(), "a damaged set-aside row passed unnoticed")
        #expect(why.contains("1 row(s) of sync_set_aside") && why.contains("'vaultctl repair' mends it"), "\(why)")
        #expect(try sync { try VaultSync.setAside(of: project.id, in: $0.database) }?.records == 1)

        // `repair` writes the counter again from the signed record, the refusing device from the
        // project's other set-aside row; recorded.
        let mend = try VaultSync.DamagedRows.mend(vault.unlocked)
        #expect(mend.mended == ["sync_set_aside": 1] && mend.dropped.isEmpty && mend.waiting.isEmpty, "\(mend)")
        #expect(try rows() == ["2 \(peer.device.hex) 7", "3 \(peer.device.hex) 7"])
        #expect(mended().contains("mended=sync_set_aside=1"), "\(mended())")
        #expect(try reason() == nil)
        // Still set aside, as signed: nothing is committed in the project (no counter 2 signed again).
        #expect(try sync { try VaultSync.setAside(of: project.id, in: $0.database) }?.records == 2)
        #expect(try write("First. Second. Third. Fourth.") == nil)
    }

    @Test func aSetAsideRowWhoseRecordDoesNotOpenIsDroppedAndOneThatMayBeThisDevicesMakesTheProjectWait() throws {
        try #require(try write("First.")?.counter == 1)
        // Another device's row whose record is nowhere: dropped; no counter of this device's in it.
        try strayRow(of: peer.device)
        #expect(try reason()?.contains("row(s) of sync_set_aside") == true)
        var mend = try VaultSync.DamagedRows.mend(vault.unlocked)
        #expect(mend.dropped == ["sync_set_aside": 1] && mend.mended.isEmpty && mend.waiting.isEmpty, "\(mend)")
        #expect(try rows().isEmpty && (try reason()) == nil)
        #expect(try sync { try OwnRecordFloor(database: $0.database).floor(of: project.id) } == nil)

        // One naming this device: dropped too, and the project waits, view-only, for one sync with an
        // own device (an own device may hold the record, whose counter must not be signed again).
        try strayRow(of: try vault.unlocked.deviceKeys().profile.deviceID)
        mend = try VaultSync.DamagedRows.mend(vault.unlocked)
        #expect(mend.dropped == ["sync_set_aside": 1] && mend.waiting == [project.id], "\(mend)")
        #expect(try sync { try OwnRecordFloor(database: $0.database).floor(of: project.id) } == OwnRecordFloor.untilOwnPull)
        #expect(try store { try $0.project(project.id) }.isViewOnly, "view-only until then")
    }
}
