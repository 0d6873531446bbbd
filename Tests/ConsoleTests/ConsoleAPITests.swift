import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import Writing
@testable import Console

/// The console's API does what the CLI does, through the same library: every write and read is
/// recorded, and a privileged project shows nothing without a session.
@Suite struct ConsoleAPITests {
    @Test("a save into a project shared with this device to view only is refused (403, viewOnly), nothing changes, and it is on the record")
    func aViewOnlyProjectRefusesTheConsolesSave() throws {
        let fixture = try ConsoleFixture()
        let id = try #require((try fixture.json("POST", "/api/projects", ["name": "Shared brief", "register": "general"]) as? [String: Any])?["id"] as? String)
        let document = try #require((try fixture.json("POST", "/api/projects/\(id)/nodes", ["kind": "scene", "title": "Draft"]) as? [String: Any])?["id"] as? String)
        _ = try fixture.json("PUT", "/api/projects/\(id)/documents/\(document)", ["blocks": [["kind": "paragraph", "text": "the owner's words"]]])
        // What sync does when the owner's offer says viewer (ViewOnlyProjectTests runs it over a real channel).
        #expect((try fixture.json("GET", "/api/projects/\(id)") as? [String: Any])?["view_only"] as? Bool == false)
        try fixture.unlocked.transaction { tx in try WritingStore(tx).setSyncedViewOnly(try ProjectID(hex: id), true, from: "owner") }
        // The page knows: the project and the project list say so (the editor then shows it read-only, ConsolePagesTests).
        #expect((try fixture.json("GET", "/api/projects/\(id)") as? [String: Any])?["view_only"] as? Bool == true)
        let listed = try #require(try fixture.json("GET", "/api/projects") as? [[String: Any]])
        #expect(listed.first { $0["id"] as? String == id }?["view_only"] as? Bool == true)
        let refused = try fixture.request("PUT", "/api/projects/\(id)/documents/\(document)", json: ["blocks": [["kind": "paragraph", "text": "mine"]]])
        #expect(refused.status == 403 && refused.errorCode == "viewOnly", "\(refused.status)")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("shared with you to view only"))
        let added = try fixture.request("POST", "/api/projects/\(id)/nodes", json: ["kind": "scene", "title": "Mine"])
        #expect(added.status == 403 && added.errorCode == "viewOnly")
        let read = try #require(try fixture.json("GET", "/api/projects/\(id)/documents/\(document)") as? [String: Any])
        #expect((read["blocks"] as? [[String: Any]])?.map { $0["text"] as? String } == ["the owner's words"])
        #expect(fixture.actions.filter { $0 == "writing.change-refused" }.count == 2)
    }

    @Test("a save an open editor sends after its project became view-only is refused, and the words typed are kept in a new project of the owner's own (attack review s6, A6)")
    func wordsTypedAsTheProjectBecameViewOnlyAreKept() throws {
        let fixture = try ConsoleFixture()
        let id = try #require((try fixture.json("POST", "/api/projects", ["name": "Shared brief", "register": "general"]) as? [String: Any])?["id"] as? String)
        let document = try #require((try fixture.json("POST", "/api/projects/\(id)/nodes", ["kind": "scene", "title": "Draft"]) as? [String: Any])?["id"] as? String)
        let path = "/api/projects/\(id)/documents/\(document)"
        _ = try fixture.json("PUT", path, ["blocks": [["kind": "paragraph", "text": "the owner's words"]]])
        // The editor reads the document (its base); then the owner's device makes this one a viewer (sync sets the mark at once).
        let loaded = try #require((try fixture.json("GET", path) as? [String: Any])?["blocks"] as? [[String: Any]])
        try fixture.unlocked.transaction { tx in try WritingStore(tx).setSyncedViewOnly(try ProjectID(hex: id), true, from: "owner") }
        let projectsBefore = try #require(try fixture.json("GET", "/api/projects") as? [[String: Any]]).count
        let typed = loaded + [["kind": "paragraph", "text": "words typed since the last save"]]
        let refused = try fixture.request("PUT", path, json: ["blocks": typed, "base": loaded])
        #expect(refused.status == 403 && refused.errorCode == "viewOnly", "\(refused.status)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any])
        #expect((answer["message"] as? String)?.contains("view-only") == true && (answer["message"] as? String)?.contains("kept") == true)
        let kept = try #require(answer["kept"] as? [String: Any], "the answer does not say where the words are: \(answer)")
        let keptProject = try #require(kept["project"] as? String), keptDocument = try #require(kept["document"] as? String)
        // Nothing changed in the view-only project; the refusal is on the record.
        let read = try #require(try fixture.json("GET", path) as? [String: Any])
        #expect((read["blocks"] as? [[String: Any]])?.map { $0["text"] as? String } == ["the owner's words"])
        #expect(fixture.actions.filter { $0 == "writing.change-refused" }.count == 1)
        // The words are findable: a new project of the owner's own, writable, holding everything the editor showed.
        let projects = try #require(try fixture.json("GET", "/api/projects") as? [[String: Any]])
        #expect(projects.count == projectsBefore + 1)
        let listed = try #require(projects.first { $0["id"] as? String == keptProject })
        #expect(listed["name"] as? String == "Shared brief (your words, kept)" && listed["view_only"] as? Bool == false, "\(listed)")
        let words = try #require(try fixture.json("GET", "/api/projects/\(keptProject)/documents/\(keptDocument)") as? [String: Any])
        #expect(words["title"] as? String == "Draft")
        #expect((words["blocks"] as? [[String: Any]])?.map { $0["text"] as? String } == ["the owner's words", "words typed since the last save"])
        // A refused save that sends only what the document holds keeps nothing (there is nothing to lose).
        let unchanged = try fixture.request("PUT", path, json: ["blocks": loaded, "base": loaded])
        #expect(unchanged.status == 403 && unchanged.errorCode == "viewOnly")
        #expect((try JSONSerialization.jsonObject(with: Data(unchanged.body)) as? [String: Any])?["kept"] == nil)
        #expect(try #require(try fixture.json("GET", "/api/projects") as? [[String: Any]]).count == projectsBefore + 1)
    }

    @Test("create a project, add a document, write its blocks, read them back; malformed blocks are refused; each step on the record")
    func writeAndReadADocument() throws {
        let fixture = try ConsoleFixture()
        let project = try #require(try fixture.json("POST", "/api/projects", ["name": "The harbour", "register": "fiction", "kind": "long-form"])
            as? [String: Any])
        let id = try #require(project["id"] as? String)
        #expect(project["name"] as? String == "The harbour" && project["privileged"] as? Bool == false)
        let node = try #require(try fixture.json("POST", "/api/projects/\(id)/nodes", ["kind": "scene", "title": "Arrival"]) as? [String: Any])
        let document = try #require(node["id"] as? String)
        let written = try #require(try fixture.json("PUT", "/api/projects/\(id)/documents/\(document)", [
            "blocks": [["kind": "heading-1", "text": "Arrival"], ["kind": "paragraph", "text": "The boat came in at dawn."]],
        ]) as? [String: Any])
        #expect(written["sealed"] as? Int == 2)
        let ids = try #require(written["blocks"] as? [String])
        let read = try #require(try fixture.json("GET", "/api/projects/\(id)/documents/\(document)") as? [String: Any])
        let blocks = try #require(read["blocks"] as? [[String: Any]])
        #expect(blocks.map { $0["text"] as? String } == ["Arrival", "The boat came in at dawn."])
        #expect(blocks.map { $0["id"] as? String } == ids)
        // The same blocks again with their ids: nothing is resealed.
        let again = try #require(try fixture.json("PUT", "/api/projects/\(id)/documents/\(document)", ["blocks": blocks]) as? [String: Any])
        #expect(again["sealed"] as? Int == 0 && again["kept"] as? Int == 2)
        for malformed: [String: Any] in [["kind": "paragraph", "text": "x", "rows": "not rows"], ["kind": "paragraph", "text": "x", "id": 5],
                                         ["kind": "sonnet", "text": "x"], ["kind": "paragraph"]] {
            let refused = try fixture.request("PUT", "/api/projects/\(id)/documents/\(document)", json: ["blocks": [malformed]])
            #expect(refused.status == 400 && refused.errorCode == "invalidBody", "\(malformed)")
        }
        let unchanged = try #require(try fixture.json("GET", "/api/projects/\(id)/documents/\(document)") as? [String: Any])
        #expect((unchanged["blocks"] as? [[String: Any]])?.count == 2)
        let actions = fixture.actions
        #expect(actions.contains("writing.project-create") && actions.contains("writing.node-add") && actions.contains("writing.content-write"))
        #expect(actions.contains("record.open"))
    }

    @Test("a healthcare project is locked (423) until a session is started with a purpose; then its template note opens")
    func privilegedProjectNeedsASession() throws {
        let fixture = try ConsoleFixture()
        let refused = try fixture.request("POST", "/api/projects", json: ["name": "Intake", "register": "healthcare", "template": "soap-note"])
        #expect(refused.status == 423 && refused.errorCode == "sessionRequired")
        let projects = try #require(try fixture.json("GET", "/api/projects") as? [[String: Any]])
        let locked = try #require(projects.first)
        #expect(locked["locked"] as? Bool == true && locked["name"] is NSNull && locked["privileged"] as? Bool == true)
        let id = try #require(locked["id"] as? String)
        let binder = try fixture.request("GET", "/api/projects/\(id)")
        #expect(binder.status == 423 && !binder.text.contains("Intake"))
        let session = try #require(try fixture.json("POST", "/api/sessions", ["project": id, "purpose": "write up today's session"]) as? [String: Any])
        #expect(fixture.actions.contains("session.start"))
        let opened = try #require(try fixture.json("GET", "/api/projects/\(id)") as? [String: Any])
        #expect(opened["name"] as? String == "Intake" && opened["locked"] as? Bool == false)
        let sessionID = try #require(session["id"] as? String)
        _ = try fixture.json("DELETE", "/api/sessions/\(sessionID)")
        #expect(try fixture.request("GET", "/api/projects/\(id)").status == 423)
        #expect(fixture.actions.contains("session.end"))
    }

    @Test("a privileged project's binder and the session list carry the session's time left; an ordinary project's has none")
    func sessionTimeLeft() throws {
        let fixture = try ConsoleFixture()
        let made = try #require(try fixture.json("POST", "/api/projects", ["name": "Intake", "register": "healthcare", "template": "soap-note",
                                                                             "purpose": "first session notes"]) as? [String: Any])
        let id = try #require(made["id"] as? String)
        let session = try #require((try fixture.json("GET", "/api/projects/\(id)") as? [String: Any])?["session"] as? [String: Any])
        let left = try #require(session["ends_in"] as? Int), hard = try #require(session["hard_end_in"] as? Int)
        #expect((290...300).contains(left) && (3590...3600).contains(hard) && session["idle_timeout"] as? Int == 300)
        let listed = try #require(try fixture.json("GET", "/api/sessions") as? [[String: Any]])
        #expect(listed.count == 1 && listed[0]["id"] as? String == session["id"] as? String && listed[0]["ends_in"] is Int)
        let book = try #require((try fixture.json("POST", "/api/projects", ["name": "Book", "register": "fiction"]) as? [String: Any])?["id"] as? String)
        #expect((try fixture.json("GET", "/api/projects/\(book)") as? [String: Any])?["session"] is NSNull)
    }

    @Test("each register's snippet library is served with block kinds a document takes: every snippet of every register writes back as it is")
    func snippetsWriteIntoADocument() throws {
        let fixture = try ConsoleFixture()
        let registers = try #require(try fixture.json("GET", "/api/registers") as? [[String: Any]])
        let legal = try #require(registers.first { $0["id"] as? String == "legal" })
        #expect((legal["snippets"] as? [[String: Any]])?.contains { $0["id"] as? String == "privilege-header" } == true)
        let project = try #require((try fixture.json("POST", "/api/projects", ["name": "Scratch", "register": "general"]) as? [String: Any])?["id"] as? String)
        let node = try #require((try fixture.json("POST", "/api/projects/\(project)/nodes", ["kind": "scene", "title": "All"]) as? [String: Any])?["id"] as? String)
        let blocks = registers.flatMap { ($0["snippets"] as? [[String: Any]] ?? []).flatMap { $0["blocks"] as? [[String: Any]] ?? [] } }
        #expect(blocks.count >= 20)
        _ = try fixture.json("PUT", "/api/projects/\(project)/documents/\(node)", ["blocks": blocks])
        let read = try #require((try fixture.json("GET", "/api/projects/\(project)/documents/\(node)") as? [String: Any])?["blocks"] as? [[String: Any]])
        #expect(read.map { $0["kind"] as? String } == blocks.map { $0["kind"] as? String })
        #expect(read.map { $0["text"] as? String } == blocks.map { $0["text"] as? String })
    }

    @Test("a template project in a privileged register, created with a purpose, opens its first note in that session")
    func privilegedTemplateWithPurpose() throws {
        let fixture = try ConsoleFixture()
        let made = try #require(try fixture.json("POST", "/api/projects", ["name": "Intake", "register": "healthcare", "template": "soap-note",
                                                                             "purpose": "first session notes"]) as? [String: Any])
        let id = try #require(made["id"] as? String), note = try #require(made["document"] as? String)
        let read = try #require(try fixture.json("GET", "/api/projects/\(id)/documents/\(note)") as? [String: Any])
        let blocks = try #require(read["blocks"] as? [[String: Any]])
        #expect(!blocks.isEmpty)
        #expect(fixture.sessions.live().count == 1)
    }

    @Test("moving a document before its sibling reorders the binder")
    func reorder() throws {
        let fixture = try ConsoleFixture()
        let project = try #require(try fixture.json("POST", "/api/projects", ["name": "Book", "register": "fiction"]) as? [String: Any])
        let id = try #require(project["id"] as? String)
        let first = try #require((try fixture.json("POST", "/api/projects/\(id)/nodes", ["kind": "scene", "title": "One"]) as? [String: Any])?["id"] as? String)
        let second = try #require((try fixture.json("POST", "/api/projects/\(id)/nodes", ["kind": "scene", "title": "Two"]) as? [String: Any])?["id"] as? String)
        _ = try fixture.json("POST", "/api/projects/\(id)/nodes/\(second)/move", ["parent": NSNull(), "before": first])
        let binder = try #require(try fixture.json("GET", "/api/projects/\(id)") as? [String: Any])
        let titles = (binder["nodes"] as? [[String: Any]])?.map { $0["title"] as? String }
        #expect(titles == ["Two", "One"])
    }

    @Test("renaming a document changes its title in the binder and is recorded; an empty title is refused")
    func rename() throws {
        let fixture = try ConsoleFixture()
        let id = try #require((try fixture.json("POST", "/api/projects", ["name": "Book", "register": "fiction"]) as? [String: Any])?["id"] as? String)
        let node = try #require((try fixture.json("POST", "/api/projects/\(id)/nodes", ["kind": "scene", "title": "One"]) as? [String: Any])?["id"] as? String)
        let renamed = try #require(try fixture.json("POST", "/api/projects/\(id)/nodes/\(node)/rename", ["title": "The first"]) as? [String: Any])
        #expect(renamed["title"] as? String == "The first")
        let binder = try #require(try fixture.json("GET", "/api/projects/\(id)") as? [String: Any])
        #expect((binder["nodes"] as? [[String: Any]])?.map { $0["title"] as? String } == ["The first"])
        #expect(fixture.actions.contains("writing.node-rename"))
        let refused = try fixture.request("POST", "/api/projects/\(id)/nodes/\(node)/rename", json: ["title": ""])
        #expect(refused.status == 400 && refused.errorCode == "invalidBody")
    }

    @Test("bad bodies and routes are refused with their reason", arguments: [
        ("POST", "/api/projects", "{\"name\": 5, \"register\": \"fiction\"}", 400, "invalidBody"),
        ("POST", "/api/projects", "[1,2]", 400, "invalidBody"),
        ("POST", "/api/projects", "{\"name\": \"x\", \"register\": \"astrology\"}", 400, "invalidBody"),
        ("GET", "/api/nothing", "", 404, "notFound"),
        ("DELETE", "/api/projects", "", 405, "methodNotAllowed"),
        ("GET", "/api/projects/00112233445566778899aabbccddeeff", "", 404, "notFound"),
        ("GET", "/api/projects/not-an-id", "", 404, "notFound"),
    ])
    func refusals(_ method: String, _ path: String, _ body: String, _ status: Int, _ code: String) throws {
        let fixture = try ConsoleFixture()
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(fixture.host)\r\nCookie: vault_console=\(fixture.cookie)\r\n"
        if method != "GET" { head += "Origin: http://\(fixture.host)\r\nX-CSRF-Token: \(fixture.csrf)\r\nContent-Type: application/json\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n\r\n"
        let response = try fixture.raw(Array((head + body).utf8))
        #expect(response.status == status && response.errorCode == code, "\(method) \(path): \(response.status) \(response.text)")
    }

    @Test("the egress log lists each decision the funnel made, where to and what it was, never the payload")
    func egressLog() throws {
        let fixture = try ConsoleFixture()
        #expect((try fixture.json("GET", "/api/egress") as? [Any])?.isEmpty == true)
        let notes = try fixture.unlocked.createCompartment(named: "notes", register: .general)
        _ = try EgressFunnel(vault: fixture.unlocked).submit(EgressRequest(destination: EgressDestination(kind: .model, id: "summarizer"),
                                                                           compartments: [notes], payload: Array("call me on 0612345678".utf8)))
        let listed = try #require(try fixture.json("GET", "/api/egress") as? [[String: Any]])
        #expect(listed.count == 1 && listed[0]["compartments"] as? [String] == ["notes"] && listed[0]["size"] as? Int == 21)
        #expect((listed[0]["destination"] as? String)?.contains("summarizer") == true)
        let response = try fixture.request("GET", "/api/egress")
        #expect(!response.text.contains("0612345678"))
    }

    @Test("verify from the console checks the whole log and is itself recorded")
    func verify() throws {
        let fixture = try ConsoleFixture()
        let report = try #require(try fixture.json("POST", "/api/audit/verify", [String: Any]()) as? [String: Any])
        #expect(report["verified"] as? Bool == true)
        #expect(fixture.actions.contains("audit.verify"))
        let log = try #require(try fixture.json("GET", "/api/audit?action=audit.") as? [String: Any])
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.first?["action"] as? String == "audit.verify" && entries.allSatisfy { ($0["action"] as? String)?.hasPrefix("audit.") == true })
    }
}
