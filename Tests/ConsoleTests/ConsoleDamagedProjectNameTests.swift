import CryptoVault
import Foundation
import Testing
import TestSupport
import Writing
@testable import Console

/// reviewer15's R15-8 in the console: the project list read every project's sealed name, so one
/// flipped bit in one project's name record failed the whole list (and the page showed no project).
/// vaultctl lists such a project by its id with `name_damaged`; the console now does the same: the
/// other projects are listed as ever, the damaged one by its id with the error's code (never a
/// message naming what was opened), and its documents still open.
@Suite struct ConsoleDamagedProjectNameTests {
    /// Flips one bit of `project`'s sealed name record, as reviewer15's reproduction does (byte 37 ^ 0x10).
    static func damageName(of project: String, in fixture: ConsoleFixture) throws {
        let database = try Database(path: fixture.root + "/vault/vault.db", create: false, readOnly: false)
        let row = try #require(try database.queryOne("""
            SELECT id, sealed FROM sealed_records WHERE table_name = 'writing_projects' AND record_id = ? AND field = 'name'
            """, [.blob(try ProjectID(hex: project).bytes)]))
        var sealed = try row.blob("sealed")
        sealed[37] ^= 0x10
        try database.query("UPDATE sealed_records SET sealed = ? WHERE id = ?", [.blob(sealed), .integer(try row.integer("id"))])
    }

    @Test("one project's damaged name leaves the console's project list whole: that project by its id with name_damaged, the others by name, and its documents open")
    func aDamagedNameIsListedByIdAndTheOthersAsEver() throws {
        let fixture = try ConsoleFixture()
        let damaged = try #require((try fixture.json("POST", "/api/projects", ["name": "Field notes", "register": "general"]) as? [String: Any])?["id"] as? String)
        let document = try #require((try fixture.json("POST", "/api/projects/\(damaged)/nodes", ["kind": "scene", "title": "Draft"]) as? [String: Any])?["id"] as? String)
        _ = try fixture.json("PUT", "/api/projects/\(damaged)/documents/\(document)", ["blocks": [["kind": "paragraph", "text": "words of the field"]]])
        let other = try #require((try fixture.json("POST", "/api/projects", ["name": "Case memo", "register": "general"]) as? [String: Any])?["id"] as? String)
        try Self.damageName(of: damaged, in: fixture)

        let response = try fixture.send(get: "/api/projects")
        #expect(response.status == 200, "\(response.status) \(response.text)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]], "\(response.text)")
        let row = try #require(listed.first { $0["id"] as? String == damaged }, "the damaged project is listed: \(listed)")
        #expect(row["name"] is NSNull && row["name_damaged"] as? String == "corruptRecord", "\(row)")
        #expect(listed.contains { $0["id"] as? String == other && $0["name"] as? String == "Case memo" && $0["name_damaged"] == nil }, "\(listed)")
        #expect(!response.text.contains("writing_projects/"), "no opener's message: \(response.text)")

        // Its page (the binder) shows it by id, and its documents still read.
        let binder = try #require(try fixture.json("GET", "/api/projects/\(damaged)") as? [String: Any])
        #expect(binder["name"] is NSNull && binder["name_damaged"] as? String == "corruptRecord", "\(binder)")
        #expect((binder["nodes"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Draft"], "\(binder)")
        let read = try #require(try fixture.json("GET", "/api/projects/\(damaged)/documents/\(document)") as? [String: Any])
        #expect((read["blocks"] as? [[String: Any]])?.map { $0["text"] as? String } == ["words of the field"], "\(read)")
    }

    @Test("one project's damaged name leaves the console's conflicts list whole: it is read, with no conflicts, and answers 200")
    func aDamagedNameLeavesTheConflictsListWhole() throws {
        let fixture = try ConsoleFixture()
        let damaged = try #require((try fixture.json("POST", "/api/projects", ["name": "Field notes", "register": "general"]) as? [String: Any])?["id"] as? String)
        _ = try fixture.json("POST", "/api/projects/\(damaged)/nodes", ["kind": "scene", "title": "Draft"])
        try Self.damageName(of: damaged, in: fixture)

        let response = try fixture.send(get: "/api/conflicts")
        #expect(response.status == 200, "\(response.status) \(response.text)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(response.text)")
        #expect((listed["conflicts"] as? [Any])?.isEmpty == true && listed["locked_projects"] as? Int == 0, "\(listed)")
    }
}
