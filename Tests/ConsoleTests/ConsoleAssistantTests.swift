import Assistant
import AuditChain
import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Console

/// The assistant on a document in the console: the lanes with their provider, the check that shows
/// the funnel's decision before anything is sent, and the run that confirms it and ends as an
/// aiSuggestion branch, against a replayed model server on loopback (whose own log says what reached it).
@Suite struct ConsoleAssistantTests {
    static let answer = "Gulls wheeled over the empty quay while the ferryman counted his coins twice."

    /// A fiction project with one document, and a provider answering `answer` (marked local or not).
    func setUp(local: Bool = false) throws -> (ConsoleFixture, ReplayServer, project: String, document: String) {
        let fixture = try ConsoleFixture()
        let escaped = String(decoding: try JSONSerialization.data(withJSONObject: [Self.answer], options: [.withoutEscapingSlashes]), as: UTF8.self).dropFirst().dropLast()
        let server = try ReplayServer { _ in Wire.chunkedEvents([#"{"choices":[{"index":0,"delta":{"content":\#(escaped)},"finish_reason":"stop"}]}"#, "[DONE]"]) }
        let provider = try ProviderConfiguration(name: "house", kind: .openai, url: server.url, model: "smollm2", isLocal: local)
        try fixture.unlocked.transaction { tx in try AssistantStore(tx).addProvider(provider) }
        let project = try #require((try fixture.json("POST", "/api/projects", ["name": "Tides", "register": "fiction"]) as? [String: Any])?["id"] as? String)
        let node = try #require((try fixture.json("POST", "/api/projects/\(project)/nodes", ["kind": "scene", "title": "Quay"]) as? [String: Any])?["id"] as? String)
        _ = try fixture.json("PUT", "/api/projects/\(project)/documents/\(node)", ["blocks": [["kind": "paragraph", "text": "The last ferry left at six and nobody waved."]]])
        return (fixture, server, project, node)
    }

    /// The JSON lines a streamed answer carried.
    func lines(_ response: RawResponse) throws -> [[String: Any]] {
        try response.text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test("each lane shows the provider the project's policy chooses")
    func lanesShowTheirProvider() throws {
        let (fixture, server, project, _) = try setUp()
        defer { server.stop() }
        let lanes = try #require(try fixture.json("GET", "/api/projects/\(project)/assistant") as? [String: Any])
        let rows = try #require(lanes["lanes"] as? [[String: Any]])
        #expect(rows.map { $0["lane"] as? String } == Lane.known.map(\.name))
        #expect(rows.allSatisfy { $0["provider"] as? String == "model:house/smollm2" })
        #expect((rows.first?["task"] as? String)?.contains("{scene}") == false, "the task is in the register's words")
    }

    @Test("check shows the decision and sends nothing; run confirms it, streams the decision first and ends with an AI-suggestion branch")
    func checkThenRun() throws {
        let (fixture, server, project, node) = try setUp()
        defer { server.stop() }
        let base = "/api/projects/\(project)/documents/\(node)/assistant"
        let check = try #require(try fixture.json("POST", base + "/check", ["lane": "coauthor.draft", "instruction": "keep it short"]) as? [String: Any])
        #expect(check["decision"] as? String == "allow" && check["provider"] as? String == "model:house/smollm2")
        #expect(server.requests.isEmpty, "a check sends nothing")
        #expect(!fixture.actions.contains("egress.decision") && !fixture.actions.contains("ai.call"), "a check is not a decision on the record")

        let checkID = try #require(check["check"] as? String)
        let streamed = try lines(try fixture.request("POST", base + "/run", json: ["check": checkID]))
        #expect(streamed.first?["decided"] != nil, "the recorded decision comes before the answer")
        let done = try #require(streamed.last?["done"] as? [String: Any])
        let branch = try #require(done["branch"] as? [String: Any])
        #expect(branch["kind"] as? String == "ai-suggestion" && branch["state"] as? String == "open")
        #expect(server.requests.count == 1 && server.requests[0].bodyText.contains("The last ferry left at six"))
        let branchID = try #require(branch["id"] as? String)
        let shown = try #require(try fixture.json("GET", "/api/projects/\(project)/documents/\(node)/branches/\(branchID)") as? [String: Any])
        #expect(((shown["blocks"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []).contains(Self.answer))
        let document = try #require(try fixture.json("GET", "/api/projects/\(project)/documents/\(node)") as? [String: Any])
        #expect((document["blocks"] as? [[String: Any]])?.count == 1, "nothing enters the document until the branch is adopted")
        #expect(fixture.actions.contains("egress.decision") && fixture.actions.contains("ai.call"))
    }

    @Test("a check is spent by its run, and only runs on the document it was made for")
    func checksAreSpentAndBound() throws {
        let (fixture, server, project, node) = try setUp()
        defer { server.stop() }
        let base = "/api/projects/\(project)/documents/\(node)/assistant"
        let check = try #require((try fixture.json("POST", base + "/check", ["lane": "coauthor.draft"]) as? [String: Any])?["check"] as? String)
        let other = try #require((try fixture.json("POST", "/api/projects/\(project)/nodes", ["kind": "scene", "title": "Harbour"]) as? [String: Any])?["id"] as? String)
        let elsewhere = try fixture.request("POST", "/api/projects/\(project)/documents/\(other)/assistant/run", json: ["check": check])
        #expect(elsewhere.status == 400 && elsewhere.text.contains("another document"))
        // The misdirected run spent it: a check confirms one run, on its own document.
        let again = try fixture.request("POST", base + "/run", json: ["check": check])
        #expect(again.status == 409 && again.text.contains("spent or has expired"))
        let unknown = try fixture.request("POST", base + "/run", json: ["check": String(repeating: "ab", count: 16)])
        #expect(unknown.status == 409)
        #expect(server.requests.isEmpty)
    }

    @Test("if the document changes between the check and the run, nothing is sent and the page is told to check again")
    func changedDocumentIsNotSent() throws {
        let (fixture, server, project, node) = try setUp()
        defer { server.stop() }
        let base = "/api/projects/\(project)/documents/\(node)/assistant"
        let check = try #require((try fixture.json("POST", base + "/check", ["lane": "coauthor.summarize"]) as? [String: Any])?["check"] as? String)
        _ = try fixture.json("PUT", "/api/projects/\(project)/documents/\(node)", ["blocks": [["kind": "paragraph", "text": "Dr. Vance's number is 555-0142."]]])
        let streamed = try lines(try fixture.request("POST", base + "/run", json: ["check": check]))
        let error = try #require(streamed.last?["error"] as? [String: Any])
        #expect(error["code"] as? String == AssistantErrorCode.decisionChanged.rawValue)
        #expect(server.requests.isEmpty, "nothing reached the model")
    }

    @Test("an unknown lane, a lane refused by policy and a privileged project without a session are each refused with their reason")
    func refusals() throws {
        let (fixture, server, project, node) = try setUp()
        defer { server.stop() }
        let unknown = try fixture.request("POST", "/api/projects/\(project)/documents/\(node)/assistant/check", json: ["lane": "coauthor.poem"])
        #expect(unknown.status == 400 && unknown.text.contains("no lane"))
        let clinic = try #require((try fixture.json("POST", "/api/projects", ["name": "Intake", "register": "healthcare", "template": "soap-note",
                                                                              "purpose": "notes"]) as? [String: Any])?["id"] as? String)
        let lanes = try #require(try fixture.json("GET", "/api/projects/\(clinic)/assistant") as? [String: Any])
        #expect(lanes["privileged"] as? Bool == true)
        #expect((lanes["lanes"] as? [[String: Any]])?.allSatisfy { $0["provider"] == nil && $0["refused"] is String } == true,
                "a privileged project sends nothing to a provider not marked local")
        let session = try #require((try fixture.json("GET", "/api/sessions") as? [[String: Any]])?.first?["id"] as? String)
        let nodes = try #require((try fixture.json("GET", "/api/projects/\(clinic)") as? [String: Any])?["nodes"] as? [[String: Any]])
        let note = try #require(nodes.first { $0["kind"] as? String == "scene" }?["id"] as? String)
        _ = try fixture.json("DELETE", "/api/sessions/\(session)")
        let locked = try fixture.request("POST", "/api/projects/\(clinic)/documents/\(note)/assistant/check", json: ["lane": "coauthor.draft"])
        #expect(locked.status == 423)
        #expect(server.requests.isEmpty)
    }
}
