import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// A clear column of `sync_records` flipped to another value its CHECK allows (review 17 s10,
/// N-s10-7): a counter 1 made 8, a device id made another 16 bytes. It passed every check (F18's
/// and N-s9-6's are range and type checks), and the version vector then claimed records this vault
/// does not hold. Now each row is checked against the signed record it names when the project's
/// replica is made: the project is local-only with the reason, and `vaultctl repair` writes the
/// columns again from the record.
@Suite(.serialized)
struct FlippedRecordColumnTests {
    @Test(arguments: [("counter", "counter + 7"), ("device_id", "X'\(String(repeating: "5a", count: 16))'"), ("lamport", "lamport + 3")])
    func aColumnFlippedInRangeMakesItsProjectLocalOnlyAndRepairWritesItAgain(_ column: String, _ value: String) throws {
        let f = try SyncOverNetworkFixture()
        try Database(path: f.laptop.directory + "/vault.db", create: false, readOnly: false)
            .execute("UPDATE sync_records SET \(column) = \(value) WHERE rowid = (SELECT min(rowid) FROM sync_records)")

        let status = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let projects = try #require(status["projects"] as? [[String: Any]], "\(status)")
        #expect(projects.contains { $0["project"] as? String == f.project.hex && $0["state"] as? String == "local-only"
                                    && ($0["reason"] as? String)?.contains("are not those of the signed record it names") == true }, "\(column): \(projects)")

        let mended = try f.hosts.run(.laptop, f.laptop, ["repair"])
        #expect(mended.status == 0, "\(column): \(mended.stderr)")
        #expect(mended.stdout.contains("Mended 1 damaged row(s) of sync_records of project \(f.project.hex)"), "\(column): \(mended.stdout)")
        try RepairFromDeviceTests.requireReady(f)

        try f.type("afterflip", into: 1, on: f.laptop)
        let synced = try f.sync()
        #expect(synced.status == 0, "\(column): \(synced.stderr)")
        #expect(try f.state(f.desk).text.joined(separator: " ").contains("afterflip"), "\(column)")
    }
}
