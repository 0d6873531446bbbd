import CryptoVault
import Foundation
import Testing
import Writing
@testable import Console

/// History, branches and search from the console: the store's own calls, each recorded.
@Suite struct ConsoleVersionsTests {
    /// A fiction project with one document written once.
    func novel(_ fixture: ConsoleFixture) throws -> (project: String, document: String, path: String) {
        let project = try #require((try fixture.json("POST", "/api/projects", ["name": "Book", "register": "fiction"]) as? [String: Any])?["id"] as? String)
        let node = try #require((try fixture.json("POST", "/api/projects/\(project)/nodes", ["kind": "scene", "title": "Arrival"]) as? [String: Any])?["id"] as? String)
        let path = "/api/projects/\(project)/documents/\(node)"
        _ = try fixture.json("PUT", path, ["blocks": [["kind": "paragraph", "text": "The boat came in at dawn."]]])
        return (project, node, path)
    }

    @Test("take a titled snapshot, change the text, compare word by word, restore: the text is back and each step recorded")
    func snapshotCompareRestore() throws {
        let fixture = try ConsoleFixture()
        let (_, _, path) = try novel(fixture)
        let first = try #require(try fixture.json("POST", "\(path)/snapshots", ["title": "First draft"]) as? [String: Any])
        let firstID = try #require(first["id"] as? String)
        let blocks = try #require((try fixture.json("GET", path) as? [String: Any])?["blocks"] as? [[String: Any]])
        var edited = blocks
        edited[0]["text"] = "The boat came in at noon."
        _ = try fixture.json("PUT", path, ["blocks": edited])
        let diff = try #require(try fixture.json("GET", "\(path)/diff?from=\(firstID)&to=current") as? [String: Any])
        let runs = try #require(diff["runs"] as? [[String: String]])
        #expect(runs.contains { $0["kind"] == "delete" && $0["text"]?.contains("dawn") == true })
        #expect(runs.contains { $0["kind"] == "insert" && $0["text"]?.contains("noon") == true })
        _ = try fixture.json("POST", "\(path)/snapshots/\(firstID)/restore", [String: Any]())
        let restored = try #require((try fixture.json("GET", path) as? [String: Any])?["blocks"] as? [[String: Any]])
        #expect(restored.map { $0["text"] as? String } == ["The boat came in at dawn."])
        let versions = try #require(try fixture.json("GET", "\(path)/snapshots") as? [[String: Any]])
        #expect(versions.first?["title"] as? String == "First draft" && versions.count >= 2)
        #expect(fixture.actions.contains("writing.snapshot-create") && fixture.actions.contains("writing.snapshot-restore"))
    }

    @Test("a branch shows its base and proposal side by side with the word diff; adopt then revert gives back the text as it was")
    func branchAdoptRevert() throws {
        let fixture = try ConsoleFixture()
        let (projectText, documentText, path) = try novel(fixture)
        let projectID = try ProjectID(hex: projectText), documentID = try NodeID(hex: documentText)
        // A suggestion arrives as a branch, as the assistant will make one.
        try fixture.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let base = try store.createSnapshot(of: documentID, in: projectID)
            var content = try store.documentContent(of: documentID, in: projectID)
            content.blocks[0].text = "The boat slid in at dawn."
            try store.createBranch(of: documentID, in: projectID, base: base.id, content: content, kind: .aiSuggestion, provenance: "line editor")
        }
        let listed = try #require(try fixture.json("GET", "\(path)/branches") as? [[String: Any]])
        let branch = try #require(listed.first?["id"] as? String)
        #expect(listed.first?["kind"] as? String == BranchKind.aiSuggestion.rawValue && listed.first?["state"] as? String == "open")
        let shown = try #require(try fixture.json("GET", "\(path)/branches/\(branch)") as? [String: Any])
        #expect((shown["base_blocks"] as? [[String: Any]])?.first?["text"] as? String == "The boat came in at dawn.")
        #expect((shown["blocks"] as? [[String: Any]])?.first?["text"] as? String == "The boat slid in at dawn.")
        _ = try fixture.json("POST", "\(path)/branches/\(branch)/adopt", [String: Any]())
        #expect(((try fixture.json("GET", path) as? [String: Any])?["blocks"] as? [[String: Any]])?.first?["text"] as? String == "The boat slid in at dawn.")
        let again = try fixture.request("POST", "\(path)/branches/\(branch)/adopt", json: [String: Any]())
        #expect(again.status == 409 && again.errorCode == "conflict")
        _ = try fixture.json("POST", "\(path)/branches/\(branch)/revert", [String: Any]())
        #expect(((try fixture.json("GET", path) as? [String: Any])?["blocks"] as? [[String: Any]])?.first?["text"] as? String == "The boat came in at dawn.")
        #expect(fixture.actions.contains("writing.branch-adopt") && fixture.actions.contains("writing.branch-revert"))
    }

    @Test("search finds the document by a word and counts it; a malformed query is refused for its reason")
    func search() throws {
        let fixture = try ConsoleFixture()
        let (project, document, _) = try novel(fixture)
        let found = try #require(try fixture.json("GET", "/api/projects/\(project)/search?q=dawn") as? [String: Any])
        #expect(found["found"] as? Int == 1)
        #expect((found["documents"] as? [[String: Any]])?.first?["id"] as? String == document)
        let none = try #require(try fixture.json("GET", "/api/projects/\(project)/search?q=%22grey+water%22") as? [String: Any])
        #expect(none["found"] as? Int == 0)
        let bad = try fixture.request("GET", "/api/projects/\(project)/search?q=")
        #expect(bad.status == 400 && bad.errorCode == "invalidBody")
        #expect(fixture.actions.contains("writing.search"))
    }
}
