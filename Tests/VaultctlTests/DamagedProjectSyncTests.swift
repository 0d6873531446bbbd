import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing

/// One damaged sealed value in ONE project (attack review s8, F8): a byte flipped in a project's
/// name on the answering device, or in a block on the asking one. Before, that stopped sync of every
/// project with the device and nothing said which; now the exchange leaves that project with its
/// reason and syncs the others both ways, `sync now` exits non-zero naming the damaged project and
/// pointing to `repair --from`, and `sync status` on the damaged device shows it local-only.
@Suite(.serialized)
struct DamagedProjectSyncTests {
    /// The fixture's project, synced, and a second one ("Letters", a document of two paragraphs)
    /// made on the laptop and synced to the desk; its document's first block.
    static func twoProjects() throws -> (f: SyncOverNetworkFixture, letters: ProjectID, block: BlockID) {
        let f = try SyncOverNetworkFixture()
        let (letters, block) = try f.edit(f.laptop) { store in
            let project = try store.createProject(named: "Letters", register: .general, kind: .document)
            let node = try store.addNode(.scene, titled: "To the harbour master", in: project.id)
            let block = try BlockID.random()
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [
                Block(id: block, kind: .paragraph, text: "Dear sir,"), Block(id: try BlockID.random(), kind: .paragraph, text: "the moorings"),
            ]))
            return (project.id, block)
        }
        let synced = try f.sync()
        try #require(synced.status == 0, "\(synced.stderr)")
        try #require(try f.edit(f.desk) { store in try store.nodes(in: letters).count } == 1)
        return (f, letters, block)
    }

    /// Flips one byte inside the sealed value at (table, record id, field) in the vault's database.
    static func flipByte(_ table: String, _ record: [UInt8], _ field: String, in vault: CLIVault) throws {
        let database = try Database(path: vault.directory + "/vault.db", create: false)
        let row = try #require(try database.queryOne("""
            SELECT id, sealed FROM sealed_records WHERE module = 'writing' AND table_name = ? AND record_id = ? AND field = ?
            """, [.text(table), .blob(record), .text(field)]), "no sealed \(table).\(field) of that record")
        var sealed = try row.blob("sealed")
        sealed[sealed.count - 20] ^= 0x01
        try database.query("UPDATE sealed_records SET sealed = ? WHERE id = ?", [.blob(sealed), .integer(try row.integer("id"))])
    }

    /// Words typed on each device in the fixture's (healthy) project, synced: both hold both.
    static func expectTheOtherProjectSyncsBothWays(_ f: SyncOverNetworkFixture, _ result: CLI.Result) throws {
        let laptop = try f.state(f.laptop).text.joined(separator: " "), desk = try f.state(f.desk).text.joined(separator: " ")
        for word in ["tidewater", "breakwater"] {
            #expect(laptop.contains(word) && desk.contains(word), "\(word) is not on both devices: \(result.stdout) \(result.stderr)")
        }
    }

    @Test func aProjectNameThatNoLongerOpensOnTheAnswererLeavesThatProjectAloneAndSaysWhich() throws {
        let (f, letters, _) = try Self.twoProjects()
        try Self.flipByte("writing_projects", letters.bytes, "name", in: f.desk)
        try f.type("tidewater", into: 0, on: f.laptop)
        try f.type("breakwater", into: 1, on: f.desk)

        let synced = try f.sync()
        #expect(synced.status == 65, "\(synced.stdout) \(synced.stderr)")
        #expect(synced.stderr.contains("project \(letters.hex) does not open on"), "\(synced.stderr)")
        // The hint names the device to run it on, the command with the device to rebuild from, and the project (F8's hint).
        let laptop = try PeersCommandTests.fingerprint(f.laptop)
        #expect(synced.stderr.contains(", 'vaultctl repair --from \(laptop)' rebuilds project \(letters.hex) there from this device"), "\(synced.stderr)")
        #expect(synced.stdout.contains("Left project \(letters.hex) for this run: peer-damagedProject"), "\(synced.stdout)")
        try Self.expectTheOtherProjectSyncsBothWays(f, synced)
        #expect(f.daemon?.process.isRunning == true, "the desk's daemon died")

        // The desk said why it left the project out of its answer: once, not at every exchange.
        let again = try f.sync()
        #expect(again.status == 65, "\(again.stderr)")
        let log = try f.hosts.run(.desk, f.desk, ["audit", "log", "--json", "--details", "--action", "sync.project-skipped"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]], "\(log.stderr)")
        let damaged = entries.filter { "\($0)".contains(letters.hex) && "\($0)".contains("damagedProject") }
        #expect(damaged.count == 1, "\(entries)")
        let status = try f.hosts.run(.desk, f.desk, ["sync", "status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("project \(letters.hex): LOCAL-ONLY: project \(letters.hex) does not open on this device"), "\(status.stdout)")
        #expect(status.stdout.contains("project \(f.project.hex): syncs"), "\(status.stdout)")
    }

    @Test func aBlockThatNoLongerOpensOnTheAskerLeavesThatProjectAloneAndSaysWhich() throws {
        let (f, letters, block) = try Self.twoProjects()
        try Self.flipByte("writing_blocks", block.bytes, "block", in: f.laptop)
        try f.type("tidewater", into: 0, on: f.laptop)
        try f.type("breakwater", into: 1, on: f.desk)

        let synced = try f.sync()
        #expect(synced.status == 65, "\(synced.stdout) \(synced.stderr)")
        #expect(synced.stderr.contains("project \(letters.hex) does not open on this device"), "\(synced.stderr)")
        #expect(synced.stderr.contains("on this device, 'vaultctl repair --from \(f.deskFingerprint)' rebuilds project \(letters.hex) from "),
                "\(synced.stderr)")
        #expect(synced.stdout.contains("Left project \(letters.hex) for this run: damagedProject"), "\(synced.stdout)")
        try Self.expectTheOtherProjectSyncsBothWays(f, synced)

        let status = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let projects = try #require(status["projects"] as? [[String: Any]], "\(status)")
        #expect(projects.contains { $0["project"] as? String == letters.hex && $0["state"] as? String == "local-only"
                                    && ($0["reason"] as? String)?.contains("does not open on this device") == true }, "\(projects)")
        #expect(projects.contains { $0["project"] as? String == f.project.hex && $0["state"] as? String == "ready" }, "\(projects)")
    }
}
