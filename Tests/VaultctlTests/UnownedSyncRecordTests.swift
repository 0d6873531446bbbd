import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// One byte of the project id of the laptop's own latest stored record changed (review 17 s11,
/// N-s11-5, the reviewer's pf1.sh): the row named no project, so nothing saw it. `sync status` said
/// "syncs", `repair` "nothing to mend", and the laptop's next record took the counter the hidden one
/// holds: `sync now` "sent 0" while the desk and the laptop showed different texts, and the record
/// after that was refused both ways for good. Now the project is local-only with the reason (no
/// record is signed there meanwhile), `repair` writes the id again from the signed record, and the
/// next sync brings both devices to one text.
@Suite(.serialized)
struct UnownedSyncRecordTests {
    @Test func aStoredRecordThatNamesNoProjectLeavesItsProjectLocalOnlyUntilRepairWritesItsIDAgain() throws {
        let f = try SyncOverNetworkFixture()
        try f.type("second", into: 1, on: f.laptop)
        try #require(try f.sync().status == 0)
        let database = try Database(path: f.laptop.directory + "/vault.db", create: false, readOnly: false)
        let own = try #require(try database.queryOne("SELECT device_id FROM sync_records ORDER BY counter DESC, rowid DESC LIMIT 1")?.blob("device_id"))
        let last = try #require(try database.queryOne("SELECT max(counter) AS counter FROM sync_records WHERE device_id = ?", [.blob(own)])?.integer("counter"))
        try database.execute("""
            UPDATE sync_records SET project_id = CAST(substr(project_id, 1, 15) || CASE WHEN substr(project_id, 16, 1) = X'00' THEN X'FF' ELSE X'00' END AS BLOB)
            WHERE device_id = X'\(ByteEncoding.hex(own))' AND counter = \(last)
            """)

        let status = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let projects = try #require(status["projects"] as? [[String: Any]], "\(status)")
        #expect(projects.contains { $0["project"] as? String == f.project.hex && $0["state"] as? String == "local-only"
                                    && ($0["reason"] as? String)?.contains("1 stored record(s) of it name no project here") == true
                                    && ($0["reason"] as? String)?.contains("'vaultctl repair' mends it") == true }, "\(projects)")

        // The laptop writes on; its sync signs nothing in the project (its next counter is taken).
        try f.type("third", into: 1, on: f.laptop)
        _ = try f.sync()
        let signed = try database.queryOne("SELECT count(*) AS rows FROM sync_records WHERE device_id = ? AND counter = ?", [.blob(own), .integer(last)])
        #expect(try signed?.integer("rows") == 1, "the counter of the hidden record was signed again")

        let mended = try f.hosts.run(.laptop, f.laptop, ["repair"])
        #expect(mended.status == 0, "\(mended.stderr)")
        #expect(mended.stdout.contains("Mended 1 damaged row(s) of sync_records of project \(f.project.hex)"), "\(mended.stdout)")
        try RepairFromDeviceTests.requireReady(f)

        let synced = try f.sync()
        #expect(synced.status == 0, "\(synced.stderr)")
        try f.checkConverged("after the mend")
        try f.checkVaults("after the mend")
    }
}
