import Foundation
import Testing
import Writing
@testable import Console

/// The devices page's list of sync conflicts: the open syncConflict branches of the projects the
/// console may read; decided ones and other kinds are not conflicts, locked projects are only counted.
@Suite struct ConsoleConflictTests {
    @Test("an open sync-conflict branch is listed with its project and document; once adopted it is not; other kinds never are")
    func openConflictsOnly() throws {
        let fixture = try ConsoleFixture()
        let project = try #require((try fixture.json("POST", "/api/projects", ["name": "Tides", "register": "fiction"]) as? [String: Any])?["id"] as? String)
        let node = try #require((try fixture.json("POST", "/api/projects/\(project)/nodes", ["kind": "scene", "title": "Storm"]) as? [String: Any])?["id"] as? String)
        _ = try fixture.json("PUT", "/api/projects/\(project)/documents/\(node)", ["blocks": [["kind": "paragraph", "text": "The storm broke at noon."]]])
        let snapshot = try #require((try fixture.json("POST", "/api/projects/\(project)/documents/\(node)/snapshots", [String: Any]()) as? [String: Any])?["id"] as? String)
        let (conflict, suggestion) = try fixture.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let make = { (kind: BranchKind, text: String) in
                try store.createBranch(of: try NodeID(hex: node), in: try ProjectID(hex: project), base: try SnapshotID(hex: snapshot),
                                       content: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: text)]), kind: kind, provenance: "laptop")
            }
            return (try make(.syncConflict, "The storm broke at dawn."), try make(.aiSuggestion, "The storm broke."))
        }
        let listed = try #require(try fixture.json("GET", "/api/conflicts") as? [String: Any])
        let conflicts = try #require(listed["conflicts"] as? [[String: Any]])
        #expect(conflicts.count == 1 && conflicts[0]["id"] as? String == conflict.id.hex && conflicts[0]["document_title"] as? String == "Storm"
                && conflicts[0]["project_name"] as? String == "Tides" && conflicts[0]["kind"] as? String == "sync-conflict")
        #expect(conflicts.allSatisfy { $0["id"] as? String != suggestion.id.hex })
        _ = try fixture.json("POST", "/api/projects/\(project)/documents/\(node)/branches/\(conflict.id.hex)/adopt", [String: Any]())
        #expect(((try fixture.json("GET", "/api/conflicts") as? [String: Any])?["conflicts"] as? [Any])?.isEmpty == true)
    }

    @Test("a privileged project without a session is counted, not read")
    func lockedProjectsAreCounted() throws {
        let fixture = try ConsoleFixture()
        _ = try fixture.json("POST", "/api/projects", ["name": "Intake", "register": "healthcare", "template": "soap-note", "purpose": "notes"])
        _ = try fixture.json("DELETE", "/api/sessions/\(try #require((try fixture.json("GET", "/api/sessions") as? [[String: Any]])?.first?["id"] as? String))")
        let listed = try #require(try fixture.json("GET", "/api/conflicts") as? [String: Any])
        #expect(listed["locked_projects"] as? Int == 1 && (listed["conflicts"] as? [Any])?.isEmpty == true)
    }
}
